import Foundation
import Logging
import ServiceLifecycle

/// The gateway's bus side as a `Service`: connects to the broker, publishes a ``Lease`` every
/// lease interval, and on graceful shutdown closes every WebSocket with 1001 (going away), waits
/// for them to finish (each publishes its `leave`), then closes the bus.
///
/// The bus client's blocking receive loop runs on its own thread; this service only sleeps.
public struct GatewayBusService: Service {
    let hub: GatewayHub

    public init(hub: GatewayHub) { self.hub = hub }

    public func run() async throws {
        try hub.connectBus()
        let interval = Duration.milliseconds(Int64(hub.options.leaseInterval * 1000))
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    hub.publishLease()
                    try await Task.sleep(for: interval)
                }
            }
        } catch {
            // Cancelled: graceful shutdown (or the group ending) stops the lease loop.
        }
        hub.beginShutdown()
        // Clients answer the close frame at once; a dead one is dropped after 2 s (GatewayHub.close).
        for _ in 0..<40 where hub.connectionCount > 0 {
            try? await Task.sleep(for: .milliseconds(100))
        }
        hub.closeBus()
    }
}
