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
