#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

/// The owner of a plug's child-process lifecycle (`PlugState`): starts COMMAND, restarts it with
/// backoff when it exits, and stops it in order on shutdown.
///
/// `supervise` runs on the caller's thread; the input thread, the waiter threads of the children and the
/// service's shutdown and cancellation handlers talk to it only through the methods below, which take `condition`'s lock.
///
/// `@unchecked Sendable`: all mutable state is guarded by `condition`.
final class Plug: @unchecked Sendable {
    private let options: PlugOptions
    private let stage: String
    private let logger: Logger
    private let condition = NSCondition()
    private var state: PlugState = .starting {
        // Every change wakes the input thread, which waits in poll on its socket and this pipe.
        didSet { wake?.signal() }
    }
    /// Wakes the input thread when `state` changes (nil: out of descriptors; it then polls on a timer).
    let wake = WakePipe()
    private var stopRequests = 0

    init(options: PlugOptions, logger: Logger) {
        self.options = options
        self.stage = options.displayName
        self.logger = logger
    }

    // MARK: Called from other threads

    /// For the input thread: the child whose stdin it should hold (nil while none runs), and whether
    /// shutdown has begun (then that stdin is to be closed, not written).
    func inputTarget() -> (child: ChildProcess?, shuttingDown: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (state.currentChild, state.isShuttingDown)
    }

    /// For the service's graceful shutdown (the first SIGTERM/SIGINT): stops the child in order
    /// (stdin closed, grace period, SIGTERM, SIGKILL to its process group). A second request kills
    /// at once, as `kill` does.
    func requestStop() {
        condition.lock()
        defer { condition.unlock() }
        stopRequests += 1
        switch state {
        case .running(let child, _):
            logger.info("stop requested; stopping \(options.command) (pid \(child.pid))")
            state = .stopping(child)
        case .starting, .backingOff:
            logger.info("stop requested; stopping")
            state = .stopping(nil)
        case .stopping(let child):
            if let child {
                logger.warning("stop requested again; killing \(options.command) (pid \(child.pid)) and its process group")
                child.sendToGroup(signal: SIGKILL)
            }
        case .stopped:
            break
        }
        condition.broadcast()
    }

    /// For the service's cancellation (a second signal, or a stop over `stopBudget`): kills the
    /// child's process group now and ends supervision.
    func kill() {
        condition.lock()
        defer { condition.unlock() }
        switch state {
        case .running(let child, _), .stopping(let child?):
            logger.warning("killing \(options.command) (pid \(child.pid)) and its process group")
            child.sendToGroup(signal: SIGKILL)
            state = .stopping(child)
        case .starting, .backingOff, .stopping(nil):
            state = .stopping(nil)
        case .stopped:
            break
        }
        condition.broadcast()
    }

    /// For a child's waiter thread: wakes `supervise`, which then reads the exit status.
    private func childExited() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The supervisor loop

    /// Runs COMMAND until shutdown (returns 0), or until it exits with restarts off (returns its shell
    /// status; 127 if it could not be started at all). Stdout and stderr readers are started for each
    /// child and registered in `readers`.
    func supervise(publisher: PlugPublisher, readers: DispatchGroup) -> Int32 {
        var backoff = options.backoff
        var restarts = 0
        while true {
            guard transition(to: .starting) else { break }

            let child: ChildProcess
            do {
                // The readiness file is plug's own: its command must not write it.
                child = try ChildProcess.spawn(command: options.command, arguments: options.arguments,
                                               environment: [Readiness.fileVariable: ""]) { [weak self] _ in
                    self?.childExited()
                }
            } catch {
                logger.error("\(error)")
                if !options.restart { return finish(exitCode: 127) }
                let delay = backoff.nextDelay(afterRunningFor: .zero)
                logger.info("retrying in \(Self.format(delay))")
                guard waitOutBackoff(delay) else { break }
                continue
            }

            let started = ContinuousClock.now
            guard transition(to: .running(child, since: started)) else {
                stop(child)
                break
            }
            Readiness.announce(logger, "started \(options.command) (pid \(child.pid))")
            PlugOutput.startStdoutReader(
                child: child, publisher: publisher, stage: stage, maxLineLength: options.maxLineLength,
                group: readers, logger: logger)
            PlugOutput.startStderrReader(child: child, stage: stage, group: readers, logger: logger)

            condition.lock()
            while child.exit == nil && !state.isShuttingDown {
                condition.wait()
            }
            let stopping = state.isShuttingDown
            condition.unlock()
            if stopping {
                stop(child)
                break
            }
            guard let exit = child.exit else { continue }
            Readiness.withdraw()
            let ranFor = ContinuousClock.now - started
            if !options.restart {
                logger.info("\(options.command) (pid \(child.pid)) \(exit) after \(Self.format(ranFor)); not restarting (--no-restart)")
                return finish(exitCode: exit.shellStatus)
            }
            let delay = backoff.nextDelay(afterRunningFor: ranFor)
            restarts += 1
            logger.warning("\(options.command) (pid \(child.pid)) \(exit) after \(Self.format(ranFor)); restarting in \(Self.format(delay)) (restart #\(restarts))")
            guard waitOutBackoff(delay) else { break }
        }
        return finish(exitCode: 0)
    }

    /// Moves to `next` unless shutdown has begun (then returns false and leaves the state alone).
    private func transition(to next: PlugState) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if state.isShuttingDown { return false }
        state = next
        return true
    }

    /// Sleeps `delay` in `.backingOff`, waking early for shutdown. Returns false if shutdown began.
    private func waitOutBackoff(_ delay: Duration) -> Bool {
        let until = ContinuousClock.now + delay
        guard transition(to: .backingOff(until: until)) else { return false }
        let deadline = Date().addingTimeInterval(delay.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !state.isShuttingDown && Date() < deadline {
            _ = condition.wait(until: deadline)
        }
        return !state.isShuttingDown
    }

    /// Stops `child` in order: the input thread closes its stdin as soon as it sees `.stopping`; a
    /// well-behaved stage exits on end of input. If it has not exited after `stdinCloseGrace`, SIGTERM
    /// to its process group; after `terminateGrace` more, SIGKILL to the group. Whatever the stage
    /// started in its group and left running is killed too once the stage has exited.
    private func stop(_ child: ChildProcess) {
        condition.lock()
        state = .stopping(child)
        condition.unlock()
        var exit = child.waitForExit(timeout: options.stdinCloseGrace)
        if exit == nil {
            logger.info("\(options.command) (pid \(child.pid)) still running \(Self.format(options.stdinCloseGrace)) after its stdin was closed; sending SIGTERM")
            child.sendToGroup(signal: SIGTERM)
            exit = child.waitForExit(timeout: options.terminateGrace)
        }
        if exit == nil {
            logger.warning("\(options.command) (pid \(child.pid)) ignored SIGTERM for \(Self.format(options.terminateGrace)); sending SIGKILL")
            child.sendToGroup(signal: SIGKILL)
            exit = child.waitForExit(timeout: nil)
        }
        child.sendToGroup(signal: SIGKILL)
        if let exit {
            logger.info("\(options.command) (pid \(child.pid)) \(exit)")
        }
    }

    private func finish(exitCode: Int32) -> Int32 {
        condition.lock()
        state = .stopped(exitCode: exitCode)
        condition.broadcast()
        condition.unlock()
        return exitCode
    }

    /// `0.1 s`, `2.5 s`: durations for log lines.
    static func format(_ duration: Duration) -> String {
        let seconds = duration.timeInterval
        return seconds < 10 ? String(format: "%.1f s", seconds) : String(format: "%.0f s", seconds)
    }
}
