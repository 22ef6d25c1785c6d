import CLibZMQ

/// A socket option and its value, applied with `ZMQSocket.set(_:)`.
///
/// Only the options Isobar sets deliberately are listed; each case says what it is for. Times are in
/// milliseconds, as libzmq takes them.
public enum ZMQSocketOption: Sendable {
    /// Messages queued per peer before a PUB/XPUB drops (or, with `xpubNoDrop`, refuses) further sends.
    case sendHighWaterMark(Int32)
    /// Messages queued per peer on the receiving side before libzmq stops reading from that peer.
    case receiveHighWaterMark(Int32)
    /// How long `close()` keeps trying to deliver queued messages. -1 (libzmq's default) waits forever.
    case linger(milliseconds: Int32)
    /// First delay before reconnecting to a peer that went away.
    case reconnectInterval(milliseconds: Int32)
    /// Cap for the exponentially growing reconnect delay.
    case reconnectIntervalMax(milliseconds: Int32)
    /// Largest inbound frame accepted; a peer that sends a bigger one is disconnected. -1: no limit.
    case maxMessageSize(bytes: Int64)
    /// XPUB only: report EAGAIN (non-blocking send) or block instead of silently dropping at SNDHWM.
    case xpubNoDrop(Bool)
    /// How long a blocking receive waits before failing with EAGAIN. -1: forever.
    case receiveTimeout(milliseconds: Int32)
    /// How long a blocking send waits before failing with EAGAIN. -1: forever.
    case sendTimeout(milliseconds: Int32)
    /// SUB only: receive messages whose first frame starts with these bytes (empty: everything).
    case subscribe([UInt8])
    /// SUB only: undo one earlier `subscribe` of the same bytes.
    case unsubscribe([UInt8])
    /// CURVE: this socket is the server side (the broker), holding `curveSecretKey`.
    case curveServer(Bool)
    /// CURVE: this socket's long-term public key (32 bytes, or 40 characters Z85).
    case curvePublicKey([UInt8])
    /// CURVE: this socket's long-term secret key (32 bytes, or 40 characters Z85).
    case curveSecretKey([UInt8])
    /// CURVE client: the server's public key it expects (32 bytes, or 40 characters Z85).
    case curveServerKey([UInt8])
    /// ZAP domain to authenticate this socket's peers in (needed for a ZAP handler to be consulted).
    case zapDomain(String)
    /// ZMQ_HEARTBEAT_IVL: send a ZMTP PING on a connection this often (0: never).
    case heartbeatInterval(milliseconds: Int32)
    /// ZMQ_HEARTBEAT_TIMEOUT: close a connection that sent nothing (not even a PONG) this long after a PING.
    case heartbeatTimeout(milliseconds: Int32)
    /// ZMQ_CONNECT_TIMEOUT: give up one TCP connect attempt after this long (the next one follows the
    /// reconnect interval), instead of waiting out the kernel's SYN retransmissions (1 s, 3 s, 7 s …).
    case connectTimeout(milliseconds: Int32)

    /// The options every `ZMQSocket` gets at creation, before any bind or connect (most options only
    /// affect connections made after they are set).
    public static let defaults: [ZMQSocketOption] = [
        // libzmq's default of 1,000 silently drops most of a snapshot burst (a feed is tens of thousands of
        // stations, published back to back). 100,000 absorbs a whole snapshot, while still bounding memory
        // per peer (~100k x ~300 B = ~30 MB) so a stalled subscriber cannot grow a process without bound.
        .sendHighWaterMark(100_000),
        .receiveHighWaterMark(100_000),
        // libzmq's default LINGER is infinite, so close()/zmq_ctx_term can hang at exit on a peer that
        // is gone. 200 ms flushes what a healthy local peer can take and never stalls shutdown.
        .linger(milliseconds: 200),
        // Restarted peers (a broker, a stage) must be found again quickly: retry after 100 ms, backing off
        // to at most 500 ms. A cap of 2 s let a client that had backed off during a broker restart
        // reconnect up to 2 s after the broker was back, past the 2 s convergence bound (seen once in
        // ProcessFaultTests); a connect attempt to a local peer twice a second costs nothing.
        .reconnectInterval(milliseconds: 100),
        .reconnectIntervalMax(milliseconds: 500),
        // A peer (possibly hostile, once the bus spans hosts) must not make us allocate without bound.
        // 4 MiB is four times the 1 MiB NDJSON line limit: every legal message fits. libzmq treats an
        // oversized frame as a protocol error: it drops that connection, and a *connecting* side does not
        // reconnect after a protocol error. The broker binds, so a misbehaving publisher is cut off and
        // comes back on its own; and since nothing bigger passes the broker, the connecting subscribers
        // downstream never meet the case.
        .maxMessageSize(bytes: 4 << 20),
        // A link between hosts that goes down and comes back (netns check: 5 s) must heal within about
        // a second, not wait out TCP's retransmission backoff (the next retransmission can come 3 s
        // after the link returns). A PING every second and 3 s of silence close the dead connection;
        // reconnecting, each attempt gives up after 500 ms, so a SYN goes out at least about every
        // second until the link is back. 3 s is far beyond any pause of libzmq's I/O thread on a
        // loaded machine, so a live connection is never cut for being slow. Only connections to
        // another host heartbeat: `ZMQSocket.connect`/`bind` turn it off for an endpoint on this host
        // (`ZMQEndpointScope`), where there is no link to lose and it was an idle pipeline's main bus cost.
        .heartbeatInterval(milliseconds: 1_000),
        .heartbeatTimeout(milliseconds: 3_000),
        .connectTimeout(milliseconds: 500),
    ]

    /// The default `maxMessageSize` in bytes.
    public static let defaultMaxMessageSize = 4 << 20

    var name: String {
        switch self {
        case .sendHighWaterMark: "ZMQ_SNDHWM"
        case .receiveHighWaterMark: "ZMQ_RCVHWM"
        case .linger: "ZMQ_LINGER"
        case .reconnectInterval: "ZMQ_RECONNECT_IVL"
        case .reconnectIntervalMax: "ZMQ_RECONNECT_IVL_MAX"
        case .maxMessageSize: "ZMQ_MAXMSGSIZE"
        case .xpubNoDrop: "ZMQ_XPUB_NODROP"
        case .receiveTimeout: "ZMQ_RCVTIMEO"
        case .sendTimeout: "ZMQ_SNDTIMEO"
        case .subscribe: "ZMQ_SUBSCRIBE"
        case .unsubscribe: "ZMQ_UNSUBSCRIBE"
        case .curveServer: "ZMQ_CURVE_SERVER"
        case .curvePublicKey: "ZMQ_CURVE_PUBLICKEY"
        case .curveSecretKey: "ZMQ_CURVE_SECRETKEY"
        case .curveServerKey: "ZMQ_CURVE_SERVERKEY"
        case .zapDomain: "ZMQ_ZAP_DOMAIN"
        case .heartbeatInterval: "ZMQ_HEARTBEAT_IVL"
        case .heartbeatTimeout: "ZMQ_HEARTBEAT_TIMEOUT"
        case .connectTimeout: "ZMQ_CONNECT_TIMEOUT"
        }
    }

    /// The libzmq option number and the value as bytes, ready for `zmq_setsockopt`.
    var encoded: (option: Int32, value: [UInt8]) {
        switch self {
        case .sendHighWaterMark(let v): (ZMQ_SNDHWM, Self.bytes(v))
        case .receiveHighWaterMark(let v): (ZMQ_RCVHWM, Self.bytes(v))
        case .linger(let v): (ZMQ_LINGER, Self.bytes(v))
        case .reconnectInterval(let v): (ZMQ_RECONNECT_IVL, Self.bytes(v))
        case .reconnectIntervalMax(let v): (ZMQ_RECONNECT_IVL_MAX, Self.bytes(v))
        case .maxMessageSize(let v): (ZMQ_MAXMSGSIZE, Self.bytes(v))
        case .xpubNoDrop(let v): (ZMQ_XPUB_NODROP, Self.bytes(Int32(v ? 1 : 0)))
        case .receiveTimeout(let v): (ZMQ_RCVTIMEO, Self.bytes(v))
        case .sendTimeout(let v): (ZMQ_SNDTIMEO, Self.bytes(v))
        case .subscribe(let v): (ZMQ_SUBSCRIBE, v)
        case .unsubscribe(let v): (ZMQ_UNSUBSCRIBE, v)
        case .curveServer(let v): (ZMQ_CURVE_SERVER, Self.bytes(Int32(v ? 1 : 0)))
        case .curvePublicKey(let v): (ZMQ_CURVE_PUBLICKEY, v)
        case .curveSecretKey(let v): (ZMQ_CURVE_SECRETKEY, v)
        case .curveServerKey(let v): (ZMQ_CURVE_SERVERKEY, v)
        case .zapDomain(let v): (ZMQ_ZAP_DOMAIN, Array(v.utf8))
        case .heartbeatInterval(let v): (ZMQ_HEARTBEAT_IVL, Self.bytes(v))
        case .heartbeatTimeout(let v): (ZMQ_HEARTBEAT_TIMEOUT, Self.bytes(v))
        case .connectTimeout(let v): (ZMQ_CONNECT_TIMEOUT, Self.bytes(v))
        }
    }

    private static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }
}
