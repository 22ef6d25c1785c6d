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
/// signal thread talk to it only through the methods below, which take `condition`'s lock.
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

    /// For the signal thread. The first request stops the child in order (stdin closed, grace period,
    /// SIGTERM, SIGKILL); a second one kills it at once.
    func requestStop(signal: Int32) {
        condition.lock()
        defer { condition.unlock() }
        stopRequests += 1
        switch state {
        case .running(let child, _):
            logger.info("\(stage): received \(SignalWatcher.name(of: signal)), stopping \(options.command) (pid \(child.pid))")
            state = .stopping(child)
        case .starting, .backingOff:
            logger.info("\(stage): received \(SignalWatcher.name(of: signal)), stopping")
            state = .stopping(nil)
        case .stopping(let child):
            if let child {
                logger.warning("\(stage): received \(SignalWatcher.name(of: signal)) again, killing \(options.command) (pid \(child.pid))")
                child.send(signal: SIGKILL)
            }
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
                child = try ChildProcess.spawn(command: options.command, arguments: options.arguments) { [weak self] _ in
                    self?.childExited()
                }
            } catch {
                logger.error("\(stage): \(error)")
                if !options.restart { return finish(exitCode: 127) }
                let delay = backoff.nextDelay(afterRunningFor: .zero)
                logger.info("\(stage): retrying in \(Self.format(delay))")
                guard waitOutBackoff(delay) else { break }
                continue
            }

            let started = ContinuousClock.now
            guard transition(to: .running(child, since: started)) else {
                stop(child)
                break
            }
            logger.info("\(stage): started \(options.command) (pid \(child.pid))")
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
            let ranFor = ContinuousClock.now - started
            if !options.restart {
                logger.info("\(stage): \(options.command) (pid \(child.pid)) \(exit) after \(Self.format(ranFor)); not restarting (--no-restart)")
                return finish(exitCode: exit.shellStatus)
            }
            let delay = backoff.nextDelay(afterRunningFor: ranFor)
            restarts += 1
            logger.warning("\(stage): \(options.command) (pid \(child.pid)) \(exit) after \(Self.format(ranFor)); restarting in \(Self.format(delay)) (restart #\(restarts))")
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
    /// well-behaved stage exits on end of input. If it has not exited after `stdinCloseGrace`, SIGTERM;
    /// after `terminateGrace` more, SIGKILL.
    private func stop(_ child: ChildProcess) {
        condition.lock()
        state = .stopping(child)
        condition.unlock()
        var exit = child.waitForExit(timeout: options.stdinCloseGrace)
        if exit == nil {
            logger.info("\(stage): \(options.command) (pid \(child.pid)) still running \(Self.format(options.stdinCloseGrace)) after its stdin was closed; sending SIGTERM")
            child.send(signal: SIGTERM)
            exit = child.waitForExit(timeout: options.terminateGrace)
        }
        if exit == nil {
            logger.warning("\(stage): \(options.command) (pid \(child.pid)) ignored SIGTERM for \(Self.format(options.terminateGrace)); sending SIGKILL")
            child.send(signal: SIGKILL)
            exit = child.waitForExit(timeout: nil)
        }
        if let exit {
            logger.info("\(stage): \(options.command) (pid \(child.pid)) \(exit)")
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
