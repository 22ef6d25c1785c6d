#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore
import Logging
import Synchronization

/// A command run once, not restarted: ``SupervisedProcess``'s spawn and teardown sequence
/// (``ProcessLaunch``) for whoever starts a program, talks to it and stops it (the benchmark's
/// pipeline, the test harness, `isobar conformance`). It starts in a process group of its own;
/// its stderr (and stdout, unless that goes to a file) reaches `copy` line by line; `stop()` runs
/// the teardown sequence (stdin closed when the teardown has a stdin grace, SIGTERM to its group,
/// SIGKILL for its group and its descendants' groups, each with its budget); `kill()` goes
/// straight to the last step. Every wait is an `await`; nothing polls.
public final class OneShotProcess: Sendable {
    /// Where the command's stdin comes from.
    public enum Input: Sendable, Equatable {
        /// /dev/null.
        case none
        /// A pipe: ``stdin`` is its write end.
        case pipe
        /// A file, read from its start.
        case file(String)
    }

    /// Where the command's stdout goes (its stderr always reaches `copy`).
    public enum Output: Sendable, Equatable {
        /// To `copy`, line by line.
        case lines
        /// Into this file (created or truncated), never through this process.
        case file(String)
    }

    public let name: String
    public let pid: pid_t
    /// The write end of its stdin (``Input/pipe``), else nil.
    public let stdin: ChildProcessPipe?
    private let shared: Shared

    /// What the run's task shares with the handle: it sets `exitStatus` before raising `ended`.
    private final class Shared: Sendable {
        let stopRequested = Latch()
        let ended = Latch()
        let exitStatus = Mutex<ChildProcessExit?>(nil)
    }

    private init(name: String, running: SupervisedProcess.Running, shared: Shared) {
        self.name = name
        pid = running.pid
        stdin = running.stdin
        self.shared = shared
    }

    /// Starts `command` (looked up in PATH when it has no `/`) with `arguments`, `environment`
    /// added to (and overriding) this process's; returns once it has been spawned, or throws
    /// when it could not be. `executor`: where its copies and teardown run (the test harness
    /// gives one of its own, as its tests block the shared pool's threads). `copy` gets every line it writes on a stream that is not a file
    /// (lines over `maxLineLength` as `.tooLong`), `flush` follows each read.
    public static func start(
        name: String? = nil, command: String, arguments: [String], environment: [String: String] = [:],
        input: Input = .none, output: Output = .lines,
        teardown: SupervisedProcess.Teardown = .init(terminateGrace: .seconds(3)),
        maxLineLength: Int = 64 * 1024, logger: Logger = Logger(label: "isobar.process"),
        copy: @escaping @Sendable (SupervisedProcess.Stream, LineEvent) -> Void = { _, _ in },
        flush: @escaping @Sendable (SupervisedProcess.Stream) -> Void = { _ in },
        executor: (any TaskExecutor)? = nil
    ) async throws -> OneShotProcess {
        let name = name ?? command
        let launch = ProcessLaunch(
            name: name, command: command, arguments: arguments, environment: environment,
            input: input, output: output,
            teardown: teardown, maxLineLength: maxLineLength, logger: logger, copy: copy, flush: flush)
        let shared = Shared()
        let spawned = AsyncStream<Result<OneShotProcess, any Error>>.makeStream()
        let handle = Mutex<OneShotProcess?>(nil)
        Task(executorPreference: executor) {
            do {
                let (_, exit) = try await launch.run(stop: shared.stopRequested, closeStdin: { handle.withLock { $0 }?.stdin?.close() }) { running in
                    let process = OneShotProcess(name: name, running: running, shared: shared)
                    handle.withLock { $0 = process }
                    spawned.continuation.yield(.success(process))
                    return true
                }
                shared.exitStatus.withLock { $0 = exit }
            } catch {
                spawned.continuation.yield(.failure(error))
            }
            shared.ended.raise()
            spawned.continuation.finish()
        }
        for await outcome in spawned.stream { return try outcome.get() }
        throw ChildProcessPipeError(operation: "start \(command)", errno: ECHILD)
    }

    /// How it ended, or nil while it runs.
    public var exit: ChildProcessExit? { shared.exitStatus.withLock { $0 } }

    /// Waits until it has ended (nil only if the waiting task was cancelled).
    public func waitForExit() async -> ChildProcessExit? {
        await shared.ended.wait()
        return exit
    }

    /// Waits at most `timeout` for it to end; nil if it still runs (a guard against a hang).
    public func waitForExit(timeout: Duration) async -> ChildProcessExit? {
        _ = await shared.ended.sleep(for: timeout)
        return exit
    }

    /// Runs the teardown sequence (once) and waits for the end.
    @discardableResult
    public func stop() async -> ChildProcessExit? {
        shared.stopRequested.raise()
        return await waitForExit()
    }

    /// Starts the teardown sequence and returns at once.
    public func requestStop() {
        shared.stopRequested.raise()
    }

    /// SIGKILL for its group and every group its descendants lead, now (unless it has ended).
    public func kill() {
        // SIGKILL first: the teardown that the raised latch starts sends SIGTERM, which must not
        // arrive first. The latch makes whatever is left in its group go too once it has ended.
        if !shared.ended.isRaised { ProcessLaunch.killTree(pid) }
        shared.stopRequested.raise()
    }

    /// Sends `signal` to the command alone (not its group), unless it has ended.
    public func signal(_ signal: Int32) {
        if !shared.ended.isRaised { _ = Glibc.kill(pid, signal) }
    }

    /// Every descendant of `pid` now living (children first), from `/proc`.
    public static func descendants(of pid: pid_t) -> [pid_t] {
        ProcessLaunch.descendants(of: pid)
    }
}
