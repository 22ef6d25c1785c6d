import Foundation
import IsobarCore

/// One WebSocket map client inside the gateway.
///
/// Its bus-facing state (the latest viewport, when it was sent) is read and written only under the
/// ``GatewayHub``'s lock; the outbound queue has its own. `closeChannel` drops the TCP connection
/// without a close handshake, for a client that no longer reads (its close frame would never leave).
final class GatewayConnection: @unchecked Sendable {
    // @unchecked: `viewport` and `viewportAt` are guarded by the hub's lock; `outbox` is thread-safe.
    let name: String
    let outbox: Outbox
    let closeChannel: @Sendable () -> Void
    /// The latest viewport published for this client (with its `ref`), re-sent on resync or tally.
    var viewport: Viewport?
    /// Monotonic nanoseconds when a viewport frame came in and no annotations have gone out since.
    var viewportAt: UInt64?

    init(name: String, queueCapacity: Int, closeChannel: @escaping @Sendable () -> Void) {
        self.name = name
        self.outbox = Outbox(capacity: queueCapacity)
        self.closeChannel = closeChannel
    }
}

/// WebSocket close codes the gateway sends (also in PROTOCOL.md).
public enum GatewayCloseCode {
    /// The gateway is shutting down (SIGTERM/SIGINT).
    public static let goingAway: UInt16 = 1001
    /// Policy violation: the client kept sending over its rate limit.
    public static let policyViolation: UInt16 = 1008
    /// A frame over the WebSocket layer's hard limit (sent by the library itself).
    public static let messageTooBig: UInt16 = 1009
    /// Try again later: the client read too slowly and its outbound queue filled up.
    public static let slowReader: UInt16 = 1013
    /// The client name was taken by another connection between the check and the upgrade.
    public static let nameTaken: UInt16 = 4009
}
