import Foundation
import IsobarCore
import NIOCore

/// One WebSocket map client inside the gateway.
///
/// Its bus-facing state (the latest viewport, when it was sent) is read and written only under the
/// ``GatewayHub``'s lock; the outbound queue has its own. The closures reach the connection's
/// ``WebSocketConnectionHandler``: `wake` (any thread) hops onto its event loop and drains the
/// queue, `drainOnLoop` drains it when already on `eventLoop` (the bus thread wakes each loop once
/// for all the connections a burst of bus messages filled), `sendClose` (any thread) sends a close
/// frame (and drops the TCP connection 2 s later if the peer does not answer it, as a client that
/// no longer reads never will).
final class GatewayConnection: @unchecked Sendable {
    // @unchecked: `viewport` and `viewportAt` are guarded by the hub's lock; `outbox` is thread-safe.
    let name: String
    let outbox: Outbox
    let eventLoop: any EventLoop
    let drainOnLoop: @Sendable () -> Void
    let sendClose: @Sendable (Outbox.Close) -> Void
    /// The latest viewport published for this client (with its `ref`), re-sent on resync or tally.
    var viewport: Viewport?
    /// Monotonic nanoseconds when a viewport frame came in and no annotations have gone out since.
    var viewportAt: UInt64?

    init(name: String, queueCapacity: Int, eventLoop: any EventLoop, drainOnLoop: @escaping @Sendable () -> Void,
         sendClose: @escaping @Sendable (Outbox.Close) -> Void) {
        self.name = name
        self.outbox = Outbox(capacity: queueCapacity)
        self.eventLoop = eventLoop
        self.drainOnLoop = drainOnLoop
        self.sendClose = sendClose
    }

    /// Drains the outbox on the connection's event loop (from any thread).
    func wake() { eventLoop.execute(drainOnLoop) }
}

/// WebSocket close codes the gateway sends (also in PROTOCOL.md).
public enum GatewayCloseCode {
    /// The gateway is shutting down (SIGTERM/SIGINT), or a ping went unanswered.
    public static let goingAway: UInt16 = 1001
    /// A frame that breaks the WebSocket protocol (a bad fragment sequence, an unknown opcode).
    public static let protocolError: UInt16 = 1002
    /// Policy violation: the client kept sending over its rate limit.
    public static let policyViolation: UInt16 = 1008
    /// A frame over the WebSocket layer's hard limit.
    public static let messageTooBig: UInt16 = 1009
    /// Try again later: the client read too slowly and its outbound queue filled up.
    public static let slowReader: UInt16 = 1013
    /// The client name was taken by another connection between the check and the upgrade.
    public static let nameTaken: UInt16 = 4009
}
