import Synchronization

/// Hands values from a receive thread to one waiting task, in order: `put` never blocks; `take`
/// is an `await` that returns the oldest value, or nil once its deadline passes (a timer racing
/// the value in a task group; the deadline only guards against an answer that never comes).
final class Mailbox<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var head = 0
        /// The one task waiting, and its ticket (so a late timeout does not resume a newer wait).
        var waiter: (ticket: Int, continuation: CheckedContinuation<Value?, Never>)?
        var tickets = 0
        /// The last ticket whose deadline passed.
        var expired = 0
    }

    private let state = Mutex(State())

    func put(_ value: Value) {
        let waiter: CheckedContinuation<Value?, Never>? = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.values.append(value)
            return nil
        }
        waiter?.resume(returning: value)
    }

    /// The oldest value not taken yet, waiting at most `deadline` for one.
    func take(within deadline: Duration) async -> Value? {
        let ticket: Int = state.withLock { state in
            state.tickets += 1
            return state.tickets
        }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                guard (try? await Task.sleep(for: deadline)) != nil else { return }
                let expired: CheckedContinuation<Value?, Never>? = self.state.withLock { state in
                    state.expired = ticket
                    guard let waiter = state.waiter, waiter.ticket == ticket else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                expired?.resume(returning: nil)
            }
            let value: Value? = await withCheckedContinuation { continuation in
                let ready: Value?? = state.withLock { state in
                    if state.head < state.values.count {
                        let value = state.values[state.head]
                        state.head += 1
                        if state.head == state.values.count { state.values.removeAll(keepingCapacity: true); state.head = 0 }
                        return .some(value)
                    }
                    if state.expired == ticket { return .some(nil) }
                    state.waiter = (ticket, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            group.cancelAll()
            return value
        }
    }
}
