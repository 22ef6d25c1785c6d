#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import IsobarHost

/// Runs a program as a real child process for process-level tests: the built `isobar` binary (see
/// `ProcessHarness.isobar(_:environment:)`) or any other command.
///
/// - stdin is a pipe the harness holds open until `closeStdin()` (or deinit), so a program reading
///   stdin does not see end of input before the test wants it to.
/// - stdout and stderr are read on background threads into line buffers, so the child never blocks
///   on a full pipe. `nextStdoutLine(timeout:)` consumes stdout lines in order; stderr is searched
///   (`waitForStderr(containing:timeout:)`) and kept whole for failure messages (`stderrText`).
/// - Every wait takes a timeout: a test fails instead of hanging.
/// - `deinit` kills a child that is still running together with every descendant's process group
///   (`HarnessChild.killTree`) and reaps it, so a failing test leaves no stray processes behind
///   (an `isobar up` that a test never stopped takes its plugs and stages with it).
/// - It is `HarnessChild` underneath (posix_spawnp, a process group of its own, default signal
///   dispositions, a waiter thread), not the product's `OneShotProcess`: see `HarnessChild` for why.
///
/// Example:
/// ```swift
/// let broker = try ProcessHarness.isobar(["broker"], environment: ["ISOBAR_PUB": pub, "ISOBAR_SUB": sub])
/// try #require(broker.waitForStderr(containing: "subscribers", timeout: .seconds(10)) != nil, "\(broker.stderrText)")
/// broker.signal(SIGTERM)
/// #expect(broker.waitForExit(timeout: .seconds(5)) == .exited(0))
/// ```
///
/// `@unchecked Sendable`: mutable state (line buffers, exit status) lives in `Shared` and is only
/// touched under its condition's lock; `child` is thread-safe.
final class ProcessHarness: @unchecked Sendable {
    /// How a process ended.
    enum Termination: Equatable, CustomStringConvertible {
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
    /// The running process (its pipes, its exit).
    private let child: HarnessChild
    /// The command line, for messages.
    let commandLine: String

    /// What the background threads share with the test. The threads hold only this box, never the
    /// harness itself, so dropping the harness runs `deinit` (which kills a child still running).
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var stdoutLines: [String] = []
        var stdoutRead = 0
        var stderrLines: [String] = []
        var termination: Termination?
        var stdoutOpen = true
        var stderrOpen = true
    }

    private let box = Shared()
    private var condition: NSCondition { box.condition }

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
    static func isobar(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessHarness {
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
        return try ProcessHarness(binary, arguments, environment: environment)
    }

    // MARK: Launching

    /// Starts `executable` (looked up in PATH when it has no `/`) with `arguments`, no shell.
    /// `environment` is added to (and overrides) the test process's environment.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        let box = self.box
        do {
            child = try HarnessChild.spawn(command: executable, arguments: arguments, environment: environment) { exit in
                let ended: Termination = switch exit {
                case .exited(let code): .exited(code)
                case .signaled(let signal): .signaled(signal)
                }
                box.condition.lock()
                box.termination = ended
                box.condition.broadcast()
                box.condition.unlock()
            }
        } catch {
            throw LaunchError(description: "cannot start \(commandLine): \(error)")
        }
        pid = child.pid
        Self.startReader(child.stdout, name: "stdout-\(pid)", box: box) { box, line in box.stdoutLines.append(line) } done: { $0.stdoutOpen = false }
        Self.startReader(child.stderr, name: "stderr-\(pid)", box: box) { box, line in box.stderrLines.append(line) } done: { $0.stderrOpen = false }
    }

    deinit {
        if child.exit == nil {
            child.killTree()
            _ = waitForExit(timeout: .seconds(5))
        }
        closeStdin()
    }

    // MARK: stdin

    /// Writes `text` to the child's stdin (blocking while the pipe is full).
    func write(_ text: String) throws {
        guard !child.stdin.isClosed else { throw LaunchError(description: "stdin of \(commandLine) is closed") }
        let bytes = Array(text.utf8)
        let failure = bytes.withUnsafeBytes { raw -> String? in
            do {
                try child.stdin.writeAll(raw)
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
        child.stdin.close()
    }

    // MARK: stdout and stderr

    /// The next stdout line not returned before, waiting up to `timeout`; nil on timeout or end of output.
    func nextStdoutLine(timeout: Duration) -> String? {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        defer { condition.unlock() }
        while box.stdoutRead >= box.stdoutLines.count {
            if !box.stdoutOpen { return nil }
            if !condition.wait(until: deadline) { return nil }
        }
        box.stdoutRead += 1
        return box.stdoutLines[box.stdoutRead - 1]
    }

    /// Waits up to `timeout` for a stderr line (any seen so far, or a later one) containing `text`;
    /// returns the first such line, or nil.
    func waitForStderr(containing text: String, timeout: Duration) -> String? {
        waitForStderr(timeout: timeout) { $0.contains(text) }
    }

    /// Waits up to `timeout` for the process's readiness line (`Readiness`: a `notice` whose
    /// message starts with `ready: `); returns it, or nil.
    func waitForReady(timeout: Duration) -> String? {
        waitForStderr(timeout: timeout) { $0.contains(" notice ") && $0.contains(": " + Readiness.prefix) }
    }

    /// Waits up to `timeout` for a stderr line matching `predicate`; returns the first such line, or nil.
    func waitForStderr(timeout: Duration, where predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        defer { condition.unlock() }
        var checked = 0
        while true {
            while checked < box.stderrLines.count {
                if predicate(box.stderrLines[checked]) { return box.stderrLines[checked] }
                checked += 1
            }
            if !box.stderrOpen { return nil }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    /// Number of stderr lines so far containing `text`.
    func stderrCount(containing text: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return box.stderrLines.filter { $0.contains(text) }.count
    }

    /// Everything the child wrote on stderr so far: attach it to failure messages.
    var stderrText: String {
        condition.lock()
        defer { condition.unlock() }
        return box.stderrLines.joined(separator: "\n")
    }

    /// Every stdout line so far; once the process has ended, waits (up to 5 s) for the reader to
    /// reach end of file first, so lines written just before the exit are not missed.
    var allStdoutLines: [String] {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(5)
        while box.termination != nil && box.stdoutOpen {
            if !condition.wait(until: deadline) { break }
        }
        return box.stdoutLines
    }

    // MARK: Signals and exit

    /// Sends `signal` to the child, unless it has already ended.
    func signal(_ signal: Int32) {
        child.send(signal: signal)
    }

    /// Waits up to `timeout` for the child to end; nil if it is still running.
    func waitForExit(timeout: Duration) -> Termination? {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        defer { condition.unlock() }
        while box.termination == nil {
            if !condition.wait(until: deadline) { break }
        }
        return box.termination
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
    func waitForChildPIDs(timeout: Duration) -> [pid_t] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let pids = childPIDs()
            if !pids.isEmpty { return pids }
            usleep(20_000)
        }
        return []
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

    // MARK: Private

    private static func startReader(
        _ pipe: ChildProcessPipe, name: String, box: Shared,
        append: @escaping @Sendable (Shared, String) -> Void,
        done: @escaping @Sendable (Shared) -> Void
    ) {
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { (try? pipe.read(into: $0)) ?? 0 }
                if n <= 0 { break }
                pending.append(contentsOf: buffer[0..<n])
                var lines: [String] = []
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: 0x0A) {
                    lines.append(String(decoding: pending[start..<newline], as: UTF8.self))
                    start = newline + 1
                }
                pending.removeSubrange(..<start)
                if !lines.isEmpty {
                    box.condition.lock()
                    for line in lines { append(box, line) }
                    box.condition.broadcast()
                    box.condition.unlock()
                }
            }
            pipe.close()
            box.condition.lock()
            if !pending.isEmpty { append(box, String(decoding: pending, as: UTF8.self)) }
            done(box)
            box.condition.broadcast()
            box.condition.unlock()
        }
        thread.name = "harness-\(name)"
        thread.start()
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
