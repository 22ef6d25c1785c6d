#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended (swift-subprocess's termination status, in isobar's words).
public enum ChildProcessExit: Sendable, Equatable, CustomStringConvertible {
    /// It called `exit(code)` (or returned from main).
    case exited(code: Int32)
    /// A signal killed it (SIGKILL from the OOM killer or `kill -9`, SIGSEGV from a crash, ...).
    case signaled(signal: Int32)

    /// The status a shell would report: the exit code, or 128 + the signal number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    /// Whether it exited with status 0.
    public var isSuccess: Bool { self == .exited(code: 0) }

    public var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was killed by \(Self.name(ofSignal: signal))"
        }
    }

    /// A short name for a signal number, for log lines: `SIGTERM`, `SIGKILL`, or `signal 12`.
    public static func name(ofSignal signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGKILL: "SIGKILL"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        case SIGPIPE: "SIGPIPE"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }
}
