#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibZMQ

/// Owns one libzmq socket. `deinit` (or an explicit `close()`) closes it.
///
/// Threading: a libzmq socket must be used by one thread at a time. Create it, configure it, then hand it
/// to the thread that will use it (a dedicated `Thread` for a receive loop, never a Swift concurrency task:
/// a blocking receive would pin one of the few cooperative-pool threads). Moving it between threads is
/// safe when the move goes through a lock, a thread start or a join (a full memory barrier), which is why
/// the class is `@unchecked Sendable`. To stop a thread blocked in `receive`, call `shutdown()` on the
/// context from elsewhere: the blocked call fails with `ZMQError.isTerminated`.
public final class ZMQSocket: @unchecked Sendable {
    /// The socket's type.
    public let kind: ZMQSocketKind
    /// The context the socket belongs to, kept alive for as long as the socket.
    public let context: ZMQContext
    /// The raw handle, nil once closed.
    private(set) var handle: UnsafeMutableRawPointer?

    /// Creates a socket and applies `options` (by default `ZMQSocketOption.defaults`, which bound
    /// queues and message size and make close() fast) before it is bound or connected.
    public init(
        _ context: ZMQContext,
        _ kind: ZMQSocketKind,
        options: [ZMQSocketOption] = ZMQSocketOption.defaults
    ) throws(ZMQError) {
        guard let handle = zmq_socket(context.handle, kind.rawValue) else {
            throw ZMQError.last("zmq_socket(\(kind))")
        }
        self.kind = kind
        self.context = context
        self.handle = handle
        for option in options {
            try set(option)
        }
    }

    deinit {
        close()
    }

    /// Closes the socket now. Queued outbound messages get up to LINGER to leave. Idempotent.
    /// Call it on the thread that uses the socket.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        _ = zmq_close(handle)
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { handle == nil }

    /// The open handle, or `ENOTSOCK` once closed, so use after close is an error rather than a crash.
    func openHandle(_ operation: @autoclosure () -> String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(operation: operation(), errno: ENOTSOCK) }
        return handle
    }

    /// Sets one option. Most options affect only connections made afterwards: set them before bind/connect.
    public func set(_ option: ZMQSocketOption) throws(ZMQError) {
        let handle = try openHandle("zmq_setsockopt(\(option.name))")
        let (number, value) = option.encoded
        let (rc, code) = value.withUnsafeBytes { buffer in
            let rc = zmq_setsockopt(handle, number, buffer.baseAddress, buffer.count)
            return (rc, rc == 0 ? 0 : zmq_errno())
        }
        if rc != 0 { throw ZMQError(operation: "zmq_setsockopt(\(option.name))", errno: code) }
    }

    /// Accepts connections on `endpoint` (`tcp://127.0.0.1:5559`, `tcp://127.0.0.1:*` for an ephemeral
    /// port, `ipc:///tmp/x.sock`, `inproc://name`). See `lastEndpoint()` for the port actually bound.
    public func bind(_ endpoint: String) throws(ZMQError) {
        let handle = try openHandle("zmq_bind(\(endpoint))")
        if zmq_bind(handle, endpoint) != 0 { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Connects to `endpoint`. Returns at once: libzmq connects (and reconnects, per RECONNECT_IVL)
    /// in the background, so the peer may start later.
    public func connect(_ endpoint: String) throws(ZMQError) {
        let handle = try openHandle("zmq_connect(\(endpoint))")
        if zmq_connect(handle, endpoint) != 0 { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// Stops accepting on an endpoint given to `bind`.
    public func unbind(_ endpoint: String) throws(ZMQError) {
        let handle = try openHandle("zmq_unbind(\(endpoint))")
        if zmq_unbind(handle, endpoint) != 0 { throw ZMQError.last("zmq_unbind(\(endpoint))") }
    }

    /// Disconnects from an endpoint given to `connect`.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        let handle = try openHandle("zmq_disconnect(\(endpoint))")
        if zmq_disconnect(handle, endpoint) != 0 { throw ZMQError.last("zmq_disconnect(\(endpoint))") }
    }

    /// SUB: receive messages whose first frame (the topic) starts with `prefix`; `""` means everything.
    ///
    /// Subscriptions travel to the publisher (through the broker) asynchronously: messages published
    /// before they arrive are not delivered (ZeroMQ's "slow joiner"). Probe until a message is seen,
    /// or rely on the protocol's resync; never assume a sleep is long enough.
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try set(.subscribe(Array(prefix.utf8)))
    }

    /// SUB: remove one earlier `subscribe(prefix)`.
    public func unsubscribe(_ prefix: String) throws(ZMQError) {
        try set(.unsubscribe(Array(prefix.utf8)))
    }

    /// The endpoint last bound or connected, with the real port after binding `tcp://host:*`,
    /// e.g. `tcp://127.0.0.1:41235`.
    public func lastEndpoint() throws(ZMQError) -> String {
        let handle = try openHandle("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        let rc = zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
        if rc != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_LAST_ENDPOINT)") }
        let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
