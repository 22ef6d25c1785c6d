import Synchronization

/// "Something this benchmark watches may have changed": pulsed when the bus messages waiting have been
/// applied (once per drain, `Pipeline`'s `onDrained`; a tally at once) and when a child wrote a line (`Children`), so `Pipeline.waitFor`
/// re-checks its condition on each change instead of every millisecond. One waiting task at a
/// time; `shared` serves the pipeline, a ``WSFleet`` has its own.
final class Changes: Sendable {
    static let shared = Changes()

    private struct State {
        var generation = 0
        var waiter: (ticket: Int, continuation: CheckedContinuation<Void, Never>)?
        var tickets = 0
        /// The last ticket whose deadline passed.
        var expired = 0
    }

    private let state = Mutex(State())

    /// The count of changes so far.
    var generation: Int { state.withLock { $0.generation } }

    func pulse() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.generation += 1
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }

    /// Returns once a change after `generation` happened, or `timeout` passed (a guard: the
    /// caller re-checks its own deadline).
    func next(after generation: Int, timeout: Duration) async {
        let ticket: Int = state.withLock { state in
            state.tickets += 1
            return state.tickets
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                let waiter: CheckedContinuation<Void, Never>? = self.state.withLock { state in
                    state.expired = ticket
                    guard let waiter = state.waiter, waiter.ticket == ticket else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                waiter?.resume()
            }
            await withCheckedContinuation { continuation in
                let now: Bool = state.withLock { state in
                    guard state.generation == generation, state.expired != ticket else { return true }
                    state.waiter = (ticket, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
            group.cancelAll()
        }
    }

    /// Waits at most `seconds` for `condition`, checking it again on each change rather than on a
    /// timer; returns whether it became true. The deadline only guards against a hang.
    func wait(seconds: Double, until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while true {
            let generation = self.generation
            if condition() { return true }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            await next(after: generation, timeout: left)
        }
    }
}
