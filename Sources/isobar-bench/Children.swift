import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IsobarCore
import IsobarHost
import Synchronization

/// A process a benchmark started: a ``OneShotProcess`` (isobar's own spawn and teardown), and the
/// stage pid its readiness line names when it is an `isobar plug`.
final class Child: Sendable {
    let process: OneShotProcess
    /// The pid in its first readiness line (`ready: started CMD (pid N)`, a plug's stage).
    private let stagePID = Mutex<pid_t?>(nil)
    private let ready = Latch()

    init(process: OneShotProcess) { self.process = process }

    var processIdentifier: pid_t { process.pid }

    /// Notes a stderr line: the first readiness line naming a pid raises `ready`.
    fileprivate func heard(_ line: String) {
        guard line.contains(Readiness.prefix), let range = line.range(of: "(pid "),
              let pid = pid_t(line[range.upperBound...].prefix { $0.isNumber }) else { return }
        if stagePID.withLock({ old in defer { old = old ?? pid }; return old == nil }) { ready.raise() }
    }

    /// The pid its readiness line names (a plug's stage), waiting for that line at most `timeout`
    /// (a guard against a plug that never starts its stage); nil then.
    func awaitStagePID(timeout: Duration = .seconds(10)) async -> pid_t? {
        _ = await ready.sleep(for: timeout)
        return stagePID.withLock { $0 }
    }
}

/// The processes a benchmark started, so they are stopped however it ends: normally
/// (`stop`, each with the teardown sequence `isobar up` uses), on SIGINT/SIGTERM (the handler
/// sends SIGTERM to them), or on a thrown error.
///
/// The pid table is a fixed C array so the signal handler only reads plain memory and calls
/// `kill`, both async-signal-safe.
enum Children {
    private static let capacity = 64
    nonisolated(unsafe) private static let pids: UnsafeMutablePointer<pid_t> = {
        let table = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        table.initialize(repeating: 0, count: capacity)
        return table
    }()
    /// Held while the table is written (the handler only reads it).
    private static let table = Mutex(())

    /// Installs the signal handlers once, at start.
    static func installSignalHandlers() {
        _ = pids
        let handler: @convention(c) (Int32) -> Void = { signal in
            for i in 0..<Children.capacity where Children.pids[i] > 0 { kill(Children.pids[i], SIGTERM) }
            _exit(128 + signal)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Starts `executable` with `arguments` and `environment` additions. With `log` (a file
    /// path), what it writes on stdout and stderr goes there; `stdout` sends its stdout to a file
    /// instead (never through this process); `onLine` hears every line not sent to a file.
    /// A stop gives it 3 s after SIGTERM before SIGKILL (for it and its descendants' groups).
    static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                      log: String? = nil, stdin: OneShotProcess.Input = .none, stdout: OneShotProcess.Output = .lines,
                      maxLineLength: Int = 64 << 20,
                      onLine: @escaping @Sendable (SupervisedProcess.Stream, LineEvent) -> Void = { _, _ in }) async throws -> Child {
        let logFile = log.map { path -> FileHandle? in
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        } ?? nil
        let child = Mutex<Child?>(nil)
        let process = try await OneShotProcess.start(
            name: (executable as NSString).lastPathComponent, command: executable, arguments: arguments, environment: environment,
            input: stdin, output: stdout, teardown: .init(terminateGrace: .seconds(3)), maxLineLength: maxLineLength
        ) { stream, event in
            onLine(stream, event)
            guard case .line(let line) = event else { return }
            if let logFile { logFile.write(Data(line) + Data([0x0A])) }
            if stream == .standardError { child.withLock { $0 }?.heard(String(decoding: line, as: UTF8.self)) }
            Changes.shared.pulse()
        }
        let started = Child(process: process)
        child.withLock { $0 = started }
        register(process.pid)
        return started
    }

    private static func register(_ pid: pid_t) {
        table.withLock { _ in
            for i in 0..<capacity where pids[i] == 0 {
                pids[i] = pid
                return
            }
        }
    }

    /// Stops one process with the teardown sequence (SIGTERM to its group, SIGKILL after 3 s).
    static func stop(_ child: Child) async {
        await child.process.stop()
        table.withLock { _ in
            for i in 0..<capacity where pids[i] == child.process.pid { pids[i] = 0 }
        }
    }

    /// Stops `children` in reverse order of starting.
    static func stop(_ children: [Child]) async {
        for child in children.reversed() { await stop(child) }
    }
}
