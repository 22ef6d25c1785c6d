#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import IsobarCore
import IsobarHost
import Synchronization

/// Runs a program as a real child process for process-level tests: the built `isobar` binary (see
/// `ProcessHarness.isobar(_:environment:)`) or any other command.
///
/// - It is the product's `OneShotProcess` underneath (swift-subprocess: a process group of its
///   own, default signal dispositions, the child awaited on a pidfd and reaped), its run on a
///   thread of its own (`TestThreadExecutor.harness`), so a test blocking a pool thread elsewhere
///   never holds back its output or its exit.
/// - stdin is a pipe the harness holds open until `closeStdin()` (or deinit), so a program reading
///   stdin does not see end of input before the test wants it to.
/// - stdout and stderr are copied line by line into buffers as they come, so the child never
///   blocks on a full pipe. `nextStdoutLine(timeout:)` consumes stdout lines in order; stderr is
///   searched (`waitForStderr(containing:timeout:)`) and kept whole for failure messages
///   (`stderrText`).
/// - Every wait is an `await` on the process's events (a line, its exit), never a blocked thread,
///   and takes a timeout: a test fails instead of hanging.
/// - It starts only inside a test that holds one of the `ProcessTestSlots` (the `.processSlot`
///   trait), so the async process tests do not all run at once and starve each other's deadlines.
/// - `deinit` kills a child that is still running together with every descendant's process group
///   (`OneShotProcess.kill`), so a failing test leaves no stray processes behind (an `isobar up`
///   that a test never stopped takes its plugs and stages with it); swift-subprocess reaps it.
///
/// Example:
/// ```swift
/// let broker = try await ProcessHarness.isobar(["broker"], environment: ["ISOBAR_PUB": pub, "ISOBAR_SUB": sub])
/// try #require(await broker.waitForStderr(containing: "subscribers", timeout: .seconds(10)) != nil, "\(broker.stderrText)")
/// broker.signal(SIGTERM)
/// #expect(await broker.waitForExit(timeout: .seconds(5)) == .exited(0))
/// ```
final class ProcessHarness: Sendable {
    /// How a process ended.
    enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// A launch failure.
    struct LaunchError: Error, CustomStringConvertible {
        let description: String
    }

    /// The child's pid.
    let pid: pid_t
    /// The running process (its stdin, its signals, its teardown).
    private let process: OneShotProcess
    /// The command line, for messages.
    let commandLine: String
    /// What the process's copies share with the test. They hold only this box, never the harness
    /// itself, so dropping the harness runs `deinit` (which kills a child still running).
    private let box: Shared

    /// The lines and the exit seen so far; `changed` is raised (and replaced) on every change, so
    /// a wait awaits the next event instead of polling.
    private final class Shared: Sendable {
        struct State {
            var stdoutLines: [String] = []
            var stdoutRead = 0
            var stderrLines: [String] = []
            /// Set once the process has ended and its output has been copied to its end.
            var termination: Termination?
            var changed = Latch()
        }

        /// What a wait's check decides.
        enum Check<Value> {
            case keepWaiting
            case done(Value)
        }

        let state = Mutex(State())

        /// Applies `change` and wakes every wait.
        func update(_ change: (inout State) -> Void) {
            let changed = state.withLock { state in
                change(&state)
                let changed = state.changed
                state.changed = Latch()
                return changed
            }
            changed.raise()
        }

        /// Runs `check` now and after every change until it is done or `timeout` has passed
        /// (then nil).
        func wait<Value>(timeout: Duration, _ check: (inout State) -> Check<Value?>) async -> Value? {
            let deadline = ContinuousClock.now + timeout
            while true {
                let (outcome, changed) = state.withLock { state in (check(&state), state.changed) }
                if case .done(let value) = outcome { return value }
                let remaining = deadline - ContinuousClock.now
                if remaining <= .zero { return nil }
                _ = await changed.sleep(for: remaining)
            }
        }

        /// Lines copied but not yet in `state`: they join it at the next `flush`, so a stream
        /// that writes fast wakes the waits once per read, not once per line.
        private let pending = Mutex<(stdout: [String], stderr: [String])>(([], []))

        func append(_ stream: SupervisedProcess.Stream, _ event: LineEvent) {
            let line = switch event {
            case .line(let bytes): String(decoding: bytes, as: UTF8.self)
            case .tooLong(let length, let excerpt): "\(excerpt)... (a line of \(length) bytes, cut by the harness)"
            }
            pending.withLock { pending in
                switch stream {
                case .standardOutput: pending.stdout.append(line)
                case .standardError: pending.stderr.append(line)
                }
            }
        }

        /// Moves the lines copied since the last flush into `state`.
        func flush() {
            let (stdout, stderr) = pending.withLock { pending in
                defer { pending = ([], []) }
                return pending
            }
            guard !stdout.isEmpty || !stderr.isEmpty else { return }
            update { state in
                state.stdoutLines += stdout
                state.stderrLines += stderr
            }
        }
    }

    // MARK: Locating the binary

    /// The package root: three levels above this file (`Tests/IsobarTestSupport/ProcessHarness.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `isobar` executable to test: `$ISOBAR_BINARY` if set (e.g. a release build), else the
    /// one built beside this test bundle (any `--scratch-path`), else `.build/debug/isobar` under
    /// the package root. Build it first (`swift build`).
    static var isobarBinary: String {
        if let path = ProcessInfo.processInfo.environment["ISOBAR_BINARY"], !path.isEmpty { return path }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let me = URL(fileURLWithPath: String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
            var directory = me.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("isobar").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return packageRoot.appendingPathComponent(".build/debug/isobar").path
    }

    /// Starts `isobar ARGUMENTS...` with `environment` added to (and overriding) the test's environment.
    static func isobar(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessHarness {
        let binary = isobarBinary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw LaunchError(description: "no isobar binary at \(binary): run `swift build` first (or set ISOBAR_BINARY)")
        }
        // Every `isobar up` and `isobar places` a test starts loads the few-row sample gazetteer
        // unless the test names one: the full default costs seconds of a debug build's CPU each.
        var environment = environment
        if environment["ISOBAR_PLACES"] == nil {
            environment["ISOBAR_PLACES"] = packageRoot.appendingPathComponent("Fixtures/places-sample.txt").path
        }
        return try await ProcessHarness(binary, arguments, environment: environment)
    }

    // MARK: Launching

    /// Starts `executable` (looked up in PATH when it has no `/`) with `arguments`, no shell.
    /// `environment` is added to (and overrides) the test process's environment.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        guard ProcessTestSlots.held else {
            throw LaunchError(description: "cannot start \(commandLine): a test that starts processes runs in a slot (`@Suite(.processSlot)` or `@Test(.processSlot)`, see ProcessTestSlots)")
        }
        let box = Shared()
        self.box = box
        do {
            process = try await OneShotProcess.start(
                command: executable, arguments: arguments, environment: environment, input: .pipe,
                maxLineLength: 1 << 28, copy: { box.append($0, $1) }, flush: { _ in box.flush() },
                executor: TestThreadExecutor.harness)
        } catch {
            throw LaunchError(description: "cannot start \(commandLine): \(error)")
        }
        pid = process.pid
        let process = self.process
        // The run ends after its output has been copied to its end, so a test that saw the exit
        // has every line.
        Task(executorPreference: TestThreadExecutor.harness) {
            let exit = await process.waitForExit()
            let ended: Termination = switch exit {
            case .exited(let code): .exited(code)
            case .signaled(let signal): .signaled(signal)
            case nil: .signaled(0)
            }
            box.flush()
            box.update { $0.termination = ended }
        }
    }

    deinit {
        if process.exit == nil { process.kill() }
        closeStdin()
    }

    // MARK: stdin

    /// Writes `text` to the child's stdin (blocking while the pipe is full).
    func write(_ text: String) throws {
        guard let stdin = process.stdin, !stdin.isClosed else { throw LaunchError(description: "stdin of \(commandLine) is closed") }
        let bytes = Array(text.utf8)
        let failure = bytes.withUnsafeBytes { raw -> String? in
            do {
                try stdin.writeAll(raw)
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure { throw LaunchError(description: "writing to \(commandLine) failed: \(failure)") }
    }

    /// Writes `line` plus `\n`.
    func writeLine(_ line: String) throws {
        try write(line + "\n")
    }

    /// Closes the child's stdin: it sees end of input. Idempotent.
    func closeStdin() {
        process.stdin?.close()
    }

    // MARK: stdout and stderr

    /// The next stdout line not returned before, waiting up to `timeout`; nil on timeout or once
    /// the process has ended and every line has been returned.
    func nextStdoutLine(timeout: Duration) async -> String? {
        await box.wait(timeout: timeout) { state in
            if state.stdoutRead < state.stdoutLines.count {
                state.stdoutRead += 1
                return .done(state.stdoutLines[state.stdoutRead - 1])
            }
            return state.termination == nil ? .keepWaiting : .done(nil)
        }
    }

    /// Waits up to `timeout` for a stderr line (any seen so far, or a later one) containing `text`;
    /// returns the first such line, or nil.
    func waitForStderr(containing text: String, timeout: Duration) async -> String? {
        await waitForStderr(timeout: timeout) { $0.contains(text) }
    }

    /// Waits up to `timeout` for the process's readiness line (`Readiness`: a `notice` whose
    /// message starts with `ready: `); returns it, or nil.
    func waitForReady(timeout: Duration) async -> String? {
        await waitForStderr(timeout: timeout) { $0.contains(" notice ") && $0.contains(": " + Readiness.prefix) }
    }

    /// Waits up to `timeout` for a stderr line matching `predicate`; returns the first such line,
    /// or nil (also once the process has ended without one).
    func waitForStderr(timeout: Duration, where predicate: (String) -> Bool) async -> String? {
        var checked = 0
        return await box.wait(timeout: timeout) { state in
            while checked < state.stderrLines.count {
                if predicate(state.stderrLines[checked]) { return .done(state.stderrLines[checked]) }
                checked += 1
            }
            return state.termination == nil ? .keepWaiting : .done(nil)
        }
    }

    /// Number of stderr lines so far containing `text`.
    func stderrCount(containing text: String) -> Int {
        box.state.withLock { $0.stderrLines.filter { $0.contains(text) }.count }
    }

    /// Everything the child wrote on stderr so far: attach it to failure messages.
    var stderrText: String {
        box.state.withLock { $0.stderrLines.joined(separator: "\n") }
    }

    /// Every stdout line so far (every line it wrote, once `waitForExit` has returned its end).
    var allStdoutLines: [String] {
        box.state.withLock { $0.stdoutLines }
    }

    // MARK: Signals and exit

    /// Sends `signal` to the child, unless it has already ended.
    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// How the child ended, or nil while it runs (or its output is still being copied).
    var termination: Termination? {
        box.state.withLock { $0.termination }
    }

    /// Waits up to `timeout` for the child to end; nil if it is still running.
    func waitForExit(timeout: Duration) async -> Termination? {
        await box.wait(timeout: timeout) { state in state.termination.map { .done($0) } ?? .keepWaiting }
    }

    /// Pids of the child's own children (e.g. the COMMAND an `isobar plug` runs), from /proc.
    func childPIDs() -> [pid_t] {
        Self.children(of: pid)
    }

    /// Pids of the processes whose parent is `parent`, from /proc.
    static func children(of parent: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // Fields after "(comm)": state, ppid, ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let ppid = pid_t(fields[1]), ppid == parent else { return nil }
            return pid
        }.sorted()
    }

    /// The argv of a process, from /proc (empty when it is gone).
    static func commandLine(_ pid: pid_t) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The service name `isobar up` gives a child with this argv: a plug's `--name`; a built-in
    /// stage on the bus in process (`isobar filter --bus [--shard K/N]`) `filter` or `filter-K`;
    /// otherwise the subcommand (`broker`, `sample-feed`, `gateway`). Nil for anything else.
    static func serviceName(argv: [String]) -> String? {
        guard argv.count > 1 else { return nil }
        if argv[1] == "plug" {
            guard let index = argv.firstIndex(of: "--name"), index + 1 < argv.count else { return nil }
            return argv[index + 1]
        }
        if argv[1] == "filter", let index = argv.firstIndex(of: "--shard"), index + 1 < argv.count,
           let k = argv[index + 1].split(separator: "/").first {
            return "filter-\(k)"
        }
        return argv[1]
    }

    /// The live children of `up` by service name (see `serviceName(argv:)`).
    static func services(under up: pid_t) -> [String: pid_t] {
        var result: [String: pid_t] = [:]
        for pid in children(of: up) where isAlive(pid) {
            if let name = serviceName(argv: commandLine(pid)) { result[name] = pid }
        }
        return result
    }

    /// The process that runs a service's stage: a plug's command (its live child; nil while none
    /// runs), or the service itself when it is not a plug (a built-in stage with `--bus`).
    static func stagePID(ofService pid: pid_t) -> pid_t? {
        guard commandLine(pid).dropFirst().first == "plug" else { return isAlive(pid) ? pid : nil }
        return children(of: pid).first(where: isAlive)
    }

    /// Waits up to `timeout` until the child has at least one child process; returns their pids.
    func waitForChildPIDs(timeout: Duration) async -> [pid_t] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let pids = childPIDs()
            if !pids.isEmpty { return pids }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return []
    }

    /// Every descendant of `pid` now living (children first), from /proc.
    static func descendants(of pid: pid_t) -> [pid_t] {
        OneShotProcess.descendants(of: pid)
    }

    /// Whether a process with this pid exists (and is not a zombie).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    // MARK: Ports

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed).
    static func freeTCPPort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : 0
    }

    /// `tcp://127.0.0.1:PORT` on a free port.
    static func freeTCPEndpoint() -> String {
        "tcp://127.0.0.1:\(freeTCPPort())"
    }
}
