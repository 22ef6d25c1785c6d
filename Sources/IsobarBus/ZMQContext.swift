#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibZMQ

/// Owns one libzmq context: the I/O threads and the registry every socket of a process hangs off.
///
/// A process normally needs exactly one. Sockets keep their context alive (each holds a strong reference),
/// so `deinit`, which calls `zmq_ctx_term`, runs only after every socket has been closed and never blocks
/// on a socket someone forgot.
///
/// `@unchecked Sendable`: libzmq documents contexts as thread-safe, and the handle is set once in `init`
/// and never changes, so sharing the reference between threads is safe.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Creates a context. Fails only when the process is out of file descriptors or memory.
    public init() throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets (receive, send, poll, `zmq_proxy`) return
    /// `ETERM` now, from any thread. This is how a signal-watching thread stops receive loops and the
    /// broker's proxy: each owner then sees `ZMQError.isTerminated`, closes its socket and returns.
    /// Idempotent; the context stays valid until it is deinitialised.
    public func shutdown() {
        _ = zmq_ctx_shutdown(handle)
    }

    /// The libzmq version this process runs against, e.g. `(4, 3, 4)`.
    public static var version: (major: Int32, minor: Int32, patch: Int32) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }

    /// Whether libzmq was built with a capability such as `"curve"` (needs libsodium) or `"ipc"`.
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }

    deinit {
        // Every socket holds a reference to us, so all are closed by now and zmq_ctx_term only waits for
        // their LINGER (short, see ZMQSocketOption.defaults). EINTR means a signal arrived: retry.
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }
}
