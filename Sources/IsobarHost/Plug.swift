#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

/// The owner of a plug's child process: starts COMMAND, restarts it with backoff when it exits,
/// and stops it in order on shutdown, as `SupervisedCommand` (the supervisor logic it shares with
/// `isobar up`) decides.
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
    private var command: SupervisedCommand<ChildProcess> {
        // Every change wakes the input thread, which waits in poll on its socket and this pipe.
        didSet { wake?.signal() }
    }
    /// Wakes the input thread when `command` changes (nil: out of descriptors; it then polls on a timer).
    let wake = WakePipe()

    init(options: PlugOptions, logger: Logger) {
        self.options = options
        self.stage = options.displayName
        self.logger = logger
        command = SupervisedCommand(backoff: options.backoff, restart: options.restart)
    }

    // MARK: Called from other threads

    /// For the input thread: the child whose stdin it should hold (nil while none runs), and whether
    /// shutdown has begun (then that stdin is to be closed, not written).
    func inputTarget() -> (child: ChildProcess?, shuttingDown: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (command.currentChild, command.isShuttingDown)
    }

    /// For the service's graceful shutdown (the first SIGTERM/SIGINT): stops the child in order
    /// (stdin closed, grace period, SIGTERM, SIGKILL to its process group). A second request kills
    /// at once, as `kill` does.
    func requestStop() {
        condition.lock()
        defer { condition.unlock() }
        let wasShuttingDown = command.isShuttingDown
        switch command.requestStop() {
        case .stopInOrder(let child):
            logger.info("stop requested; stopping \(options.command) (pid \(child.pid))")
        case .kill(let child):
            logger.warning("stop requested again; killing \(options.command) (pid \(child.pid)) and its process group")
            child.sendToGroup(signal: SIGKILL)
        case .none:
            if !wasShuttingDown { logger.info("stop requested; stopping") }
        }
        condition.broadcast()
    }

    /// For the service's cancellation (a second signal, or a stop over `stopBudget`): kills the
    /// child's process group now and ends supervision.
    func kill() {
        condition.lock()
        defer { condition.unlock() }
        if case .kill(let child) = command.kill() {
            logger.warning("killing \(options.command) (pid \(child.pid)) and its process group")
            child.sendToGroup(signal: SIGKILL)
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
        supervision: while locked({ $0.beginStart() }) {
            let child: ChildProcess
            do {
                // The readiness file is plug's own: its command must not write it.
                child = try ChildProcess.spawn(command: options.command, arguments: options.arguments,
                                               environment: [Readiness.fileVariable: ""]) { [weak self] _ in
                    self?.childExited()
                }
            } catch {
                logger.error("\(error)")
                switch locked({ $0.failedToStart(at: .now) }) {
                case .finish(let exitCode): return exitCode
                case .stop: break supervision
                case .restart(let delay):
                    logger.info("retrying in \(Self.format(delay))")
                    guard waitOutBackoff(delay) else { break supervision }
                    continue supervision
                }
            }

            let started = ContinuousClock.now
            guard locked({ $0.started(child, at: started) }) else {
                stop(child)
                break
            }
            Readiness.announce(logger, "started \(options.command) (pid \(child.pid))")
            PlugOutput.startStdoutReader(
                child: child, publisher: publisher, stage: stage, maxLineLength: options.maxLineLength,
                group: readers, logger: logger)
            PlugOutput.startStderrReader(child: child, stage: stage, group: readers, logger: logger)

            condition.lock()
            while child.exit == nil && !command.isShuttingDown {
                condition.wait()
            }
            let stopping = command.isShuttingDown
            condition.unlock()
            if stopping {
                stop(child)
                break
            }
            guard let exit = child.exit else { continue }
            Readiness.withdraw()
            let ranFor = ContinuousClock.now - started
            switch locked({ $0.exited(status: exit.shellStatus, ranFor: ranFor, at: .now) }) {
            case .finish(let exitCode):
                logger.info("\(options.command) (pid \(child.pid)) \(exit) after \(Self.format(ranFor)); not restarting (--no-restart)")
                return exitCode
            case .stop:
                break supervision
            case .restart(let delay):
                let restarts = locked { $0.restarts }
                logger.warning("\(options.command) (pid \(child.pid)) \(exit) after \(Self.format(ranFor)); restarting in \(Self.format(delay)) (restart #\(restarts))")
                guard waitOutBackoff(delay) else { break supervision }
            }
        }
        return finish(exitCode: 0)
    }

    /// Runs `body` on the lifecycle under the lock.
    private func locked<T>(_ body: (inout SupervisedCommand<ChildProcess>) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&command)
    }

    /// Sleeps `delay` (the lifecycle is backing off), waking early for shutdown. Returns false if
    /// shutdown began.
    private func waitOutBackoff(_ delay: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(delay.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !command.isShuttingDown && Date() < deadline {
            _ = condition.wait(until: deadline)
        }
        return !command.isShuttingDown
    }

    /// Stops `child` in order: the input thread closes its stdin as soon as it sees `.stopping`; a
    /// well-behaved stage exits on end of input. If it has not exited after `stdinCloseGrace`, SIGTERM
    /// to its process group; after `terminateGrace` more, SIGKILL to the group. Whatever the stage
    /// started in its group and left running is killed too once the stage has exited.
    private func stop(_ child: ChildProcess) {
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
        command.finish(exitCode: exitCode)
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
