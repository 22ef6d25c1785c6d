import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The processes a benchmark started, so they are stopped however it ends: normally
/// (`stopAll`), on SIGINT/SIGTERM (the handler kills them), or on a thrown error.
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
    private static let lock = NSLock()

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

    /// Starts `executable` with `arguments` and `environment` additions; stdout/stderr go to
    /// `log` (a file path) unless given explicitly.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                      log: String? = nil, stdin: Any? = nil, stdout: Any? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = FileHandle(forWritingAtPath: log)
            process.standardError = handle
            process.standardOutput = stdout ?? handle
        } else if let stdout {
            process.standardOutput = stdout
        }
        if let stdin { process.standardInput = stdin }
        try process.run()
        register(process.processIdentifier)
        return process
    }

    static func register(_ pid: pid_t) {
        lock.lock(); defer { lock.unlock() }
        for i in 0..<capacity where pids[i] == 0 {
            pids[i] = pid
            return
        }
    }

    /// Stops one process: SIGTERM, then SIGKILL after `grace` seconds.
    static func stop(_ process: Process, grace: Double = 3) {
        let pid = process.processIdentifier
        if process.isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(pid, SIGKILL) }
            process.waitUntilExit()
        }
        lock.lock(); defer { lock.unlock() }
        for i in 0..<capacity where pids[i] == pid { pids[i] = 0 }
    }

    /// Stops `processes` in reverse order of starting.
    static func stop(_ processes: [Process]) {
        for process in processes.reversed() { stop(process) }
    }
}
