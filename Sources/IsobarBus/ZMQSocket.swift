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
    /// The ZMTP heartbeat interval asked for (`heartbeatInterval`, 0: none): what connections to
    /// another host get; connections that stay on this host get none (``ZMQEndpointScope``).
    private var heartbeatMilliseconds: Int32 = 0

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
        if case .heartbeatInterval(let milliseconds) = option { heartbeatMilliseconds = milliseconds }
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
        try heartbeat(for: endpoint)
        let handle = try openHandle("zmq_bind(\(endpoint))")
        if zmq_bind(handle, endpoint) != 0 { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Connects to `endpoint`. Returns at once: libzmq connects (and reconnects, per RECONNECT_IVL)
    /// in the background, so the peer may start later.
    public func connect(_ endpoint: String) throws(ZMQError) {
        try heartbeat(for: endpoint)
        let handle = try openHandle("zmq_connect(\(endpoint))")
        if zmq_connect(handle, endpoint) != 0 { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// Sets the heartbeat of the connections `endpoint` makes (libzmq copies the options into each
    /// connection when it is made): the interval asked for to another host, none on this host.
    private func heartbeat(for endpoint: String) throws(ZMQError) {
        guard heartbeatMilliseconds > 0 else { return }
        let wanted = ZMQEndpointScope(endpoint) == .network ? heartbeatMilliseconds : 0
        let handle = try openHandle("zmq_setsockopt(ZMQ_HEARTBEAT_IVL)")
        var value = wanted
        if zmq_setsockopt(handle, ZMQ_HEARTBEAT_IVL, &value, MemoryLayout<Int32>.size) != 0 {
            throw ZMQError.last("zmq_setsockopt(ZMQ_HEARTBEAT_IVL)")
        }
    }

    /// The ZMTP heartbeat interval the next connection gets (ZMQ_HEARTBEAT_IVL, milliseconds; 0: none).
    public func heartbeatInterval() throws(ZMQError) -> Int32 {
        let handle = try openHandle("zmq_getsockopt(ZMQ_HEARTBEAT_IVL)")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(handle, ZMQ_HEARTBEAT_IVL, &value, &size) != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_HEARTBEAT_IVL)") }
        return value
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
