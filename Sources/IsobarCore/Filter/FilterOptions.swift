/// Settings of the filter stage.
public struct FilterOptions: Sendable {
    /// Clients silent for longer than this are forgotten (seconds).
    public var idleSeconds: Double = 600
    /// At most this many clients are held; beyond it the least recently seen is dropped.
    public var maxClients = 100_000
    /// Minimum seconds between two resync requests this filter sends.
    public var resyncInterval: Double = 1
    /// A viewport heartbeat reporting a version older than the last one sent at least this many
    /// seconds ago means that answer was lost: the client gets its whole set again. Shorter would
    /// resend answers that are merely still in flight.
    public var lostAnswerGrace: Double = 0.25

    public init() {}
}
