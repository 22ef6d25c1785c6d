import IsobarStdio

/// Coalesces resync requests: while one republication is queued, further requests join it instead
/// of queueing another, so a burst (or a flood) of resync lines costs one republication, not one
/// per line, and the queue of pending work stays bounded.
public final class ResyncGate: @unchecked Sendable {
    // @unchecked: `pending` is only touched with `lock` held.
    private let lock = NSLockLike()
    private var pending = false
    private let action: @Sendable (String) async -> Void

    public init(_ action: @escaping @Sendable (String) async -> Void) {
        self.action = action
    }

    /// Requests a republication; returns false when it joined one already queued.
    @discardableResult
    public func request(reason: String) -> Bool {
        let start: Bool = lock.withLock {
            if pending { return false }
            pending = true
            return true
        }
        guard start else { return false }
        Task {
            // Cleared before the work starts, so a request arriving during it is served afterwards.
            lock.withLock { pending = false }
            await action(reason)
        }
        return true
    }
}
