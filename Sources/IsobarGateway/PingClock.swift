/// One connection's liveness as the ping wheel sees it (``PingSweeper``): when the peer was last
/// heard from, when the gateway last sent it anything, and whether a ping is out. Pure, with the
/// time passed in, so the decisions are tested without sockets or clocks.
///
/// The rules (PROTOCOL.md, "Liveness"), for a keepalive interval `interval` and a probe time
/// `probe` (``Timing``; `--ping` and `--ping-every` x `--ping`):
/// - **Keepalive.** A connection the gateway sent nothing on for `interval` gets an unsolicited
///   pong (RFC 6455 5.5.3: "a unidirectional heartbeat", which no client answers): what a proxy's
///   idle timer counts (nginx's `proxy_read_timeout` counts only what the upstream sends) at the
///   cost of one write, with no read to follow.
/// - **Probe.** A peer not heard from (no frame of any kind) for `probe` is pinged, and dropped
///   (1001) when no pong comes within `interval`. A peer that talks is never pinged: its own
///   frames show it is there. The ping is also a frame sent, so it stands for that interval's
///   keepalive.
///
/// A silent client at the defaults (50 s, every 3rd) costs the gateway a pong at 50 s, a pong at
/// 100 s and a ping (and its pong's read) at 150 s: three writes and one read per 150 s, against
/// three writes and three reads when every keepalive was a ping.
struct PingClock: Equatable {
    /// The two times the rules run on, seconds.
    struct Timing: Equatable {
        /// The longest the gateway stays silent on a connection (`--ping`), and the time a ping
        /// has for its pong.
        var interval: Double
        /// The longest the peer may stay silent before it is pinged (`--ping-every` x `--ping`).
        var probe: Double

        /// `interval`, and a probe every `probeEvery` intervals (at least 1: every keepalive a ping).
        init(interval: Double, probeEvery: Int) {
            self.interval = interval
            probe = interval * Double(max(1, probeEvery))
        }
    }

    /// What the check at a connection's due time does with it.
    enum Action: Equatable {
        /// Nothing yet: look again at ``due(_:)``.
        case wait
        /// Send an unsolicited pong: the gateway was silent for an interval.
        case keepalive
        /// Send a ping: the peer was silent for the probe time.
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

    /// What the check at `now` does with this connection. A keepalive due less than half an
    /// interval before the probe is the ping (early by that much at most): else a pong would go
    /// now and the ping a moment later, two writes where one does (the pong of the last ping came
    /// a little after it, so the probe falls due a little after the third keepalive). Half, not a
    /// whole interval: each check runs a little late (up to a wheel slot), so the second
    /// keepalive is a little less than an interval before the probe, and must stay a pong.
    func action(now: Double, _ timing: Timing) -> Action {
        if let pingSentAt { return now >= pingSentAt + timing.interval ? .drop : .wait }
        if now >= lastHeard + timing.probe { return .ping }
        guard now >= lastSent + timing.interval else { return .wait }
        return lastHeard + timing.probe < now + timing.interval / 2 ? .ping : .keepalive
    }

    /// When the connection next needs the check: an interval after its ping went out (the pong's
    /// deadline), else the earlier of its probe (the probe time after the peer was last heard) and
    /// its keepalive (an interval after the gateway last sent it anything).
    func due(_ timing: Timing) -> Double {
        if let pingSentAt { return pingSentAt + timing.interval }
        return min(lastHeard + timing.probe, lastSent + timing.interval)
    }

    /// A frame came from the peer.
    mutating func heard(at now: Double) { lastHeard = now }

    /// A frame went to the peer (an unsolicited pong included).
    mutating func sent(at now: Double) { lastSent = now }

    /// A pong came: the ping out is answered. A pong with no ping out is any frame heard.
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
