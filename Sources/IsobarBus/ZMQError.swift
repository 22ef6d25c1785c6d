#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibZMQ

/// A failed libzmq call: which operation failed, the `errno` it reported and libzmq's text for it.
///
/// Callers branch on the predicates (`isTerminated`, `isAgain`, ...) rather than on raw numbers, and print
/// `description`, which names the operation so the message says what to fix (a bad endpoint, a port in use).
public struct ZMQError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The libzmq call and its main argument, e.g. `zmq_bind(tcp://127.0.0.1:5559)`.
    public let operation: String
    /// The `errno` value libzmq reported (`zmq_errno()`), e.g. `EADDRINUSE` or `ETERM`.
    public let errno: Int32

    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// Captures `zmq_errno()` of the calling thread; call it right after the failing libzmq call.
    static func last(_ operation: @autoclosure () -> String) -> ZMQError {
        let code = zmq_errno()
        return ZMQError(operation: operation(), errno: code)
    }

    /// libzmq's (or the C library's) text for `errno`.
    public var message: String {
        guard let text = zmq_strerror(errno) else { return "unknown error" }
        return String(cString: text)
    }

    public var description: String {
        var text = "\(operation) failed: \(message) (errno \(errno))"
        if let hint { text += "; \(hint)" }
        return text
    }

    /// The context was shut down or terminated: every blocking call returns this; the owner should close
    /// its socket and stop.
    public var isTerminated: Bool { errno == ETERM }
    /// A non-blocking call could not proceed, or a receive timed out.
    public var isAgain: Bool { errno == EAGAIN }
    /// A blocking call was interrupted by a signal; retrying is safe.
    public var isInterrupted: Bool { errno == EINTR }

    private var hint: String? {
        switch errno {
        case EADDRINUSE: "another process already listens on this endpoint (is a broker already running?)"
        case EADDRNOTAVAIL: "the address is not one of this host's interfaces"
        case EINVAL where operation.hasPrefix("zmq_bind") || operation.hasPrefix("zmq_connect"):
            "endpoints look like tcp://127.0.0.1:5559, ipc:///path/to/socket or inproc://name"
        case EPROTONOSUPPORT: "unknown transport; use tcp://, ipc:// or inproc://"
        default: nil
        }
    }
}
