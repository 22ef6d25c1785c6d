import IsobarBus
import IsobarCore

extension SubscriptionGroups {
    /// Takes the subscription changes waiting on an XPUB socket (`0x01`/`0x00` + topic each, see
    /// `apply(_:)`), without waiting: what a coalescing publisher does before a burst, so the lines
    /// it sends next use a group frame only where no subscriber is narrower. The one drain of the
    /// bus client's `publish(lines:)` and the plug's coalescing publisher.
    public mutating func take(from socket: ZMQSocket) {
        while (try? socket.receiveInPlace(blocking: false, { _, first, _ in apply(first) })) != nil {}
    }
}
