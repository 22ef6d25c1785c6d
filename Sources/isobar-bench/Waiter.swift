import Synchronization

/// Hands the time an awaited update was applied from the receive thread to the waiting task.
final class Waiter: Sendable {
    private let client = Mutex("")
    private let applied = Mailbox<(time: Double, count: Int)>()

    func expect(_ client: String) {
        self.client.withLock { $0 = client }
    }

    /// Called on the receive thread.
    func applied(client: String, count: Int, time: Double) {
        guard self.client.withLock({ $0 == client }) else { return }
        applied.put((time, count))
    }

    /// The apply time and annotation count, or nil once `deadline` passed (a deadline that only
    /// guards against an answer that never comes).
    func next(within deadline: Duration) async -> (time: Double, count: Int)? {
        await applied.take(within: deadline)
    }
}
