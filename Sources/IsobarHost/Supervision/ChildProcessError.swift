/// Starting a child process failed.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    /// The command as given (looked up in `PATH` when it has no `/`).
    public let command: String
    /// What failed: `posix_spawnp`, `pipe`, ...
    public let operation: String
    /// The `errno` it reported.
    public let errno: Int32

    public var description: String {
        let reason = String(cString: strerror(errno))
        var text = "cannot start '\(command)': \(operation) failed: \(reason) (errno \(errno))"
        if operation == "posix_spawnp" && (errno == ENOENT || errno == EACCES) {
            text += "; check that the command exists, is executable and is on PATH (it is run directly, not through a shell)"
        }
        return text
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
