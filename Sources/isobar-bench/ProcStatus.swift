import Foundation

/// Reads a process's memory figures from `/proc/PID/status` (Linux).
enum ProcStatus {
    /// The value of a `kB` field such as `VmRSS` or `VmHWM`, in bytes; nil if unreadable.
    static func bytes(_ field: String, pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// Direct children of `pid` (all of its threads), from `/proc/PID/task/*/children`.
    static func children(of pid: Int32) -> [Int32] {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [] }
        var result: [Int32] = []
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8) else { continue }
            result += text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        return result
    }

    /// Waits (polling, at most `timeout` seconds) for `pid` to have a child, e.g. the stage a plug started.
    static func waitForChild(of pid: Int32, timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let child = children(of: pid).first { return child }
            usleep(20_000)
        }
        return nil
    }

    /// CPU time (user + system, all threads) `pid` has used, in seconds, from `/proc/PID/stat`.
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func megabytes(_ bytes: Int?) -> String {
        guard let bytes else { return "-" }
        return Format.number(Double(bytes) / 1_048_576, 1)
    }
}
