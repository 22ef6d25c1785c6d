/// One connection's liveness as the ping sweep sees it (``PingSweeper``): when the peer was last
/// heard from and whether a ping is out. Pure, with the time passed in, so the sweep's decisions
/// are tested without sockets or clocks.
///
/// The rules (PROTOCOL.md, "Liveness"): a peer silent (nothing received) for a ping interval is
/// pinged; a ping unanswered (no pong) for a ping interval drops the peer with 1001. A peer that
/// keeps talking is never pinged: its own frames show it is there.
struct PingClock: Equatable {
    /// What the sweep does with a connection.
    enum Action: Equatable {
        /// Nothing: heard from within the interval, or its ping is still young.
        case wait
        /// Send a ping.
        case ping
        /// Drop it: its ping went unanswered for an interval.
        case drop
    }

    /// When a frame (any frame) last came from the peer, in seconds.
    private(set) var lastHeard: Double
    /// When the ping still unanswered went out, in seconds; nil when no ping is out.
    private(set) var pingSentAt: Double?

    init(openedAt now: Double) {
        lastHeard = now
    }

    /// What the sweep at `now` does with this connection, for a ping interval of `interval` seconds.
    func action(now: Double, interval: Double) -> Action {
        if let pingSentAt { return now - pingSentAt >= interval ? .drop : .wait }
        return now - lastHeard >= interval ? .ping : .wait
    }

    /// A frame came from the peer.
    mutating func heard(at now: Double) { lastHeard = now }

    /// A pong came: the ping out is answered.
    mutating func ponged(at now: Double) {
        lastHeard = now
        pingSentAt = nil
    }

    /// A ping went out.
    mutating func pinged(at now: Double) { pingSentAt = now }
}
