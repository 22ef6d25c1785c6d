import Logging
import ServiceLifecycle

/// The gateway's bus side as a `Service`: connects to the broker (the bus client's thread relays
/// messages and publishes a ``Lease`` every lease interval, see `GatewayHub.connectBus`), and on
/// graceful shutdown closes every WebSocket with 1001 (going away), waits for them to finish (each
/// publishes its `leave`; at most 4 s), then closes the bus.
///
/// Between the two it only awaits the shutdown: no loop, no timer of its own.
public struct GatewayBusService: Service {
    let hub: GatewayHub

    public init(hub: GatewayHub) { self.hub = hub }

    public func run() async throws {
        try hub.connectBus()
        // Graceful shutdown, or cancellation (the group ending), both lead to the same stop.
        try? await gracefulShutdown()
        hub.beginShutdown()
        // Clients answer the close frame at once; a dead one is dropped after 2 s (GatewayHub.close).
        await hub.connectionsClosed(within: .seconds(4))
        hub.closeBus()
    }
}
