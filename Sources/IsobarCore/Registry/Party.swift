/// Who writes or consumes a message type on the bus (``MessageType``): a built-in stage, the
/// gateway, a client on the bus (`isobar attach`), or an app through the gateway.
public enum Party: String, Sendable, CaseIterable {
    case fetch, persist, filter, format, places, forecast, gateway
    /// A client speaking the bus itself (`isobar attach`, any ZeroMQ SUB/PUB client).
    case attach
    /// An app or browser through the gateway's WebSocket.
    case app

    /// The built-in stages: each subscribes to what it consumes (``MessageTypes/subscriptions(of:)``).
    public static let stages: [Party] = [.fetch, .persist, .filter, .format, .places, .forecast]
}
