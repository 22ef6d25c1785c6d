import CLibZMQ

/// The socket types the bus uses. Isobar is pure pub/sub: stages PUB to the broker's XSUB and SUB from
/// its XPUB; the broker's `zmq_proxy` joins the two.
public enum ZMQSocketKind: Sendable, CustomStringConvertible {
    /// Sends to every connected subscriber whose subscription prefix matches the first frame;
    /// drops (silently) for a subscriber whose queue is at SNDHWM.
    case pub
    /// Receives messages whose first frame starts with one of its subscriptions (none by default).
    case sub
    /// A PUB that also receives subscription messages (`\u{1}topic` / `\u{0}topic`): the broker's backend.
    case xpub
    /// A SUB whose subscriptions are sent as messages: the broker's frontend.
    case xsub
    /// Answers each request with exactly one reply. Only the broker's ZAP handler (RFC 27) uses it:
    /// libzmq sends it one authentication request per CURVE client handshake.
    case rep

    var rawValue: Int32 {
        switch self {
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .rep: ZMQ_REP
        }
    }

    public var description: String {
        switch self {
        case .pub: "PUB"
        case .sub: "SUB"
        case .xpub: "XPUB"
        case .xsub: "XSUB"
        case .rep: "REP"
        }
    }
}
