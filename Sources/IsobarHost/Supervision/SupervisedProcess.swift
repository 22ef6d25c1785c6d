#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore
import Logging
import Subprocess
import Synchronization

/// One command kept running, the one way isobar runs a process (`up` runs one per service, `plug`
/// one for its stage): started in a process group of its own (swift-subprocess), its stdout and
/// stderr copied line by line to `copy`, restarted after ``Backoff`` (a `Task.sleep` that a stop
/// cuts short) when it exits, stopped with one teardown sequence. Every decision comes from
/// ``SupervisedCommand``; this type carries them out in async code, with no thread and no timed
/// poll of its own (swift-subprocess waits for the child on a pidfd).
///
/// The teardown sequence, each step with its budget from ``Teardown``: its stdin closed (by the
/// stdin's owner, told through `onChange`), SIGTERM to its group, then SIGKILL for its group and
/// every group its descendants lead (a plug's stage leads its own). A second stop request, or
/// `kill`, goes straight to the last step.
public final class SupervisedProcess: Sendable {
    /// The budgets of the teardown sequence.
    public struct Teardown: Sendable, Equatable {
        /// How long the command has after its stdin was closed before SIGTERM (nil: its stdin is
        /// closed from the start, and the sequence begins with SIGTERM).
        public var stdinCloseGrace: Duration?
        /// How long the command has after SIGTERM to its group before SIGKILL.
        public var terminateGrace: Duration

        public init(stdinCloseGrace: Duration? = nil, terminateGrace: Duration) {
            self.stdinCloseGrace = stdinCloseGrace
            self.terminateGrace = terminateGrace
        }
    }

    /// One run of the command: its pid, and the write end of its stdin when it has one.
    public final class Running: Sendable {
        public let pid: pid_t
        /// Written and closed only by the stdin's owner (plug's input thread).
        public let stdin: ChildProcessPipe?

        init(pid: pid_t, stdin: ChildProcessPipe?) {
            self.pid = pid
            self.stdin = stdin
        }
    }

    /// Which of the command's streams a line came from.
    public enum Stream: Sendable { case standardOutput, standardError }

    /// What the owner hears about (for its readiness file and logs).
    public enum Event: Sendable {
        case started(pid: pid_t)
        case exited(pid: pid_t, ChildProcessExit, ranFor: Duration)
    }

    public let name: String
    public let command: String
    public let arguments: [String]
    private let environment: [String: String]
    private let pipesStdin: Bool
    private let teardown: Teardown
    private let maxLineLength: Int
    private let logger: Logger
    private let copy: @Sendable (Stream, LineEvent) -> Void
    private let flush: @Sendable (Stream) -> Void
    private let onEvent: @Sendable (Event) -> Void
    private let onChange: @Sendable () -> Void
    private let lifecycle: Mutex<SupervisedCommand<Running>>
    /// Raised by the first stop request: ends a backoff and starts the teardown.
    private let stopRequested = Latch()
    /// Raised once the first start has been tried (spawned, failed, or skipped by a stop).
    private let firstStartTried = Latch()

    /// `environment` is added to (and overrides) this process's environment for the command.
    /// `pipesStdin`: the command's stdin is a pipe whose write end `current` hands out (else
    /// /dev/null). `copy` gets every line the command writes on either stream (lines over
    /// `maxLineLength` as `.tooLong`), `flush` follows each read. `onChange` is called after every
    /// change of `current`.
    public init(name: String, command: String, arguments: [String], environment: [String: String] = [:],
                pipesStdin: Bool = false, backoff: Backoff = Backoff(), restart: Bool = true, teardown: Teardown,
                maxLineLength: Int = 64 * 1024, logger: Logger,
                copy: @escaping @Sendable (Stream, LineEvent) -> Void, flush: @escaping @Sendable (Stream) -> Void = { _ in },
                onEvent: @escaping @Sendable (Event) -> Void = { _ in }, onChange: @escaping @Sendable () -> Void = {}) {
        self.name = name
        self.command = command
        self.arguments = arguments
        self.environment = environment
        self.pipesStdin = pipesStdin
        self.teardown = teardown
        self.maxLineLength = maxLineLength
        self.logger = logger
        self.copy = copy
        self.flush = flush
        self.onEvent = onEvent
        self.onChange = onChange
        lifecycle = Mutex(SupervisedCommand(backoff: backoff, restart: restart))
    }

    /// The pid of the command now running (or being stopped), nil while none runs.
    public var pid: pid_t? { lifecycle.withLock { $0.currentChild?.pid } }

    /// The run now current (nil while none), and whether a stop has begun (then its stdin is to
    /// be closed, not written).
    public var current: (running: Running?, shuttingDown: Bool) {
        lifecycle.withLock { ($0.currentChild, $0.isShuttingDown) }
    }

    /// Runs `body` on the lifecycle under its lock, then tells `onChange`.
    private func change<T: Sendable>(_ body: (inout SupervisedCommand<Running>) -> T) -> T {
        let result = lifecycle.withLock { state -> T in body(&state) }
        onChange()
        return result
    }

    /// Runs the command until a stop (returns 0) or, with restarts off, until it exits (returns its
    /// shell status; 127 if it could not be started).
    public func run() async -> Int32 {
        defer { firstStartTried.raise() }
        while change({ $0.beginStart() }) {
            let started = ContinuousClock.now
            let decision: SupervisedCommand<Running>.AfterExit
            do {
                let (pid, exit) = try await runOnce()
                let ranFor = ContinuousClock.now - started
                decision = change { $0.exited(status: exit.shellStatus, ranFor: ranFor, at: .now) }
                onEvent(.exited(pid: pid, exit, ranFor: ranFor))
                if case .restart(let delay) = decision {
                    logger.warning("\(name) \(exit); restarting in \(delay)")
                } else if case .finish = decision {
                    logger.info("\(name) \(exit); not restarting")
                } else {
                    logger.info("\(name) (pid \(pid)) \(exit)")
                }
            } catch {
                firstStartTried.raise()
                logger.error("cannot start \(name): \(error)")
                decision = change { $0.failedToStart(at: .now) }
                if case .restart(let delay) = decision { logger.info("retrying in \(delay)") }
            }
            switch decision {
            case .finish(let exitCode): return exitCode
            case .stop: return finish()
            case .restart(let delay):
                guard await stopRequested.sleep(for: delay) else { return finish() }
            }
        }
        return finish()
    }

    /// Returns once the first start has been tried (`run` spawned the command, or could not).
    public func waitUntilStarted() async { await firstStartTried.wait() }

    /// Asks for the teardown sequence (the first request), or SIGKILL at once (a second one).
    public func requestStop() {
        let (wasShuttingDown, action) = change { ($0.isShuttingDown, $0.requestStop()) }
        stopRequested.raise()
        switch action {
        case .stopInOrder(let running):
            logger.info("stop requested; stopping \(name) (pid \(running.pid))")
        case .kill(let running):
            logger.warning("stop requested again; killing \(name) (pid \(running.pid)) and its descendants")
            Self.killTree(running.pid)
        case .none:
            if !wasShuttingDown { logger.info("stop requested; stopping \(name)") }
        }
    }

    /// SIGKILL for the command's group and its descendants' groups now; nothing restarts.
    public func kill() {
        let action = change { $0.kill() }
        stopRequested.raise()
        if case .kill(let running) = action {
            logger.warning("killing \(name) (pid \(running.pid)) and its descendants")
            Self.killTree(running.pid)
        }
    }

    private func finish() -> Int32 {
        change { $0.finish(exitCode: 0) }
        return 0
    }

    /// Spawns the command once (``ProcessLaunch``) and returns its pid and how it ended.
    private func runOnce() async throws -> (pid_t, ChildProcessExit) {
        let launch = ProcessLaunch(
            name: name, command: command, arguments: arguments, environment: environment,
            input: pipesStdin ? .pipe : .none, output: .lines, teardown: teardown, maxLineLength: maxLineLength,
            logger: logger, copy: copy, flush: flush)
        // The stdin's owner closes it on the change that began the stop (`onChange`).
        return try await launch.run(stop: stopRequested) { [self] running in
            defer { firstStartTried.raise() }
            guard change({ $0.started(running, at: .now) }) else { return false }
            onEvent(.started(pid: running.pid))
            logger.info("started \(name) (pid \(running.pid))")
            return true
        }
    }

    /// SIGKILL for `pid`'s group and its descendants' groups.
    static func killTree(_ pid: pid_t) { ProcessLaunch.killTree(pid) }
}
