/// The client's connection to the gateway, one explicit state at a time.
public enum ConnectionStatus: Sendable, Hashable, Codable {
    /// Not started, or stopped (`IsobarClient.stop()`).
    case stopped
    /// Opening the WebSocket (`attempt` 1 is the first since the last connection).
    case connecting(attempt: Int)
    /// Open: viewports go out, answers come in.
    case connected
    /// The connection failed or ended; the next attempt starts after `retryIn` seconds (jittered
    /// backoff). `reason` says what happened, e.g. "the gateway refused the WebSocket upgrade
    /// (HTTP 401/403: a wrong or missing token…)".
    case waiting(attempt: Int, retryIn: Double, reason: String)

    /// Whether messages reach the gateway now.
    public var isConnected: Bool { self == .connected }
}
