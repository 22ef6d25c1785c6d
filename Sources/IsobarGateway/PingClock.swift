/// One connection's liveness as the ping wheel sees it (``PingSweeper``): when the peer was last
/// heard from, when the gateway last sent it anything, and whether a ping is out. Pure, with the
/// time passed in, so the decisions are tested without sockets or clocks.
///
/// The rules (PROTOCOL.md, "Liveness"): a connection quiet for a ping interval, in either
/// direction, is pinged; a ping unanswered (no pong) for a ping interval drops the peer with 1001.
/// A peer that keeps talking and is answered is never pinged: its own frames show it is there,
/// and the answers keep a proxy in between from timing the connection out. Quiet in one direction
/// is enough: nginx's `proxy_read_timeout` counts only what the gateway sends, so a client that
/// talks but is never answered must still be pinged.
struct PingClock: Equatable {
    /// What the check at a connection's due time does with it.
    enum Action: Equatable {
        /// Nothing yet: heard from and sent to within the interval, or its ping is still young.
        /// Look again at ``due(interval:)``.
        case wait
        /// Send a ping.
        case ping
        /// Drop it: its ping went unanswered for an interval.
        case drop
    }

    /// When a frame (any frame) last came from the peer, in seconds.
    private(set) var lastHeard: Double
    /// When a frame (any frame) last went to the peer, in seconds.
    private(set) var lastSent: Double
    /// When the ping still unanswered went out, in seconds; nil when no ping is out.
    private(set) var pingSentAt: Double?

    init(openedAt now: Double) {
        lastHeard = now
        lastSent = now
    }

    /// What the check at `now` does with this connection, for a ping interval of `interval` seconds.
    func action(now: Double, interval: Double) -> Action {
        if pingSentAt != nil { return now >= due(interval: interval) ? .drop : .wait }
        return now >= due(interval: interval) ? .ping : .wait
    }

    /// When the connection next needs the check: an interval after its ping went out (the pong's
    /// deadline), else an interval after it last went quiet in either direction.
    func due(interval: Double) -> Double {
        if let pingSentAt { return pingSentAt + interval }
        return min(lastHeard, lastSent) + interval
    }

    /// A frame came from the peer.
    mutating func heard(at now: Double) { lastHeard = now }

    /// A frame went to the peer.
    mutating func sent(at now: Double) { lastSent = now }

    /// A pong came: the ping out is answered.
    mutating func ponged(at now: Double) {
        lastHeard = now
        pingSentAt = nil
    }

    /// A ping went out.
    mutating func pinged(at now: Double) {
        pingSentAt = now
        lastSent = now
    }
}
