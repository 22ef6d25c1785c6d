import Synchronization

/// A one-way switch that async code awaits (a stop was requested, a first start happened): raised once, it stays raised and
/// every `wait`, past and future, returns. A waiting task that is cancelled returns too, so a
/// latch can race a sleep or a child process in a task group.
public final class Latch: Sendable {
    private enum State {
        case lowered(waiters: [Int: CheckedContinuation<Void, Never>], next: Int)
        case raised
    }

    private let state = Mutex(State.lowered(waiters: [:], next: 0))

    public init() {}

    /// Whether `raise` has been called.
    public var isRaised: Bool {
        state.withLock { if case .raised = $0 { true } else { false } }
    }

    /// Raises the latch and wakes every waiter.
    public func raise() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard case .lowered(let waiters, _) = state else { return [] }
            state = .raised
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is raised, or the calling task is cancelled.
    public func wait() async {
        let id: Int? = state.withLock { state in
            guard case .lowered(let waiters, let next) = state else { return nil }
            state = .lowered(waiters: waiters, next: next + 1)
            return next
        }
        guard let id else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    guard case .lowered(var waiters, let next) = state else { return true }
                    if Task.isCancelled { return true }
                    waiters[id] = continuation
                    state = .lowered(waiters: waiters, next: next)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard case .lowered(var waiters, let next) = state else { return nil }
                let waiter = waiters.removeValue(forKey: id)
                state = .lowered(waiters: waiters, next: next)
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Sleeps `duration` unless the latch is raised first. Returns false if it was (or the task was
    /// cancelled): the wait ended early.
    public func sleep(for duration: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await Task.sleep(for: duration)) != nil }
            group.addTask { await self.wait(); return false }
            let slept = await group.next() ?? false
            group.cancelAll()
            return slept && !isRaised
        }
    }
}
