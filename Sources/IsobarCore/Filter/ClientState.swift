/// What the filter remembers about one client: its viewport, what it was last sent, its selection.
final class ClientState {
    var viewport: Viewport
    /// Version of the last `visible` message sent (the client contract's per-client version).
    var version = 0
    /// When (the engine's clock) `version` was sent: a heartbeat reporting an older version this
    /// long after is a lost answer, not one still in flight.
    var sentAt = -Double.infinity
    /// Full sets resent for lost answers since the client last reported the current version.
    var lostAnswerResends = 0
    /// Key → fingerprint of every annotation the client holds after applying all messages sent.
    var shown = ShownSet()
    /// The snapshot `shown` was computed from; nil when the client has never seen data.
    var shownSnapshot: String?
    var selection: SelectionState = .none
    var lastSeen: Double
    /// The gateway hosting the client (nil: a plain bus client that heartbeats itself).
    var gateway: String?
    /// The gateway's number of the client's latest viewport.
    var ref = 0
    /// The client's current contribution to its gateway's `LeaseDigest` (0: none).
    var tallyEntry: UInt64 = 0

    init(viewport: Viewport, now: Double) {
        self.viewport = viewport
        self.lastSeen = now
    }
}

/// A client's callout selection.
enum SelectionState: Equatable {
    case none
    /// Selected station id and the fingerprint of the values last sent for it.
    case selected(id: String, fingerprint: UInt64?)
}
