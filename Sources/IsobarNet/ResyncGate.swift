import Foundation
import IsobarCore
import IsobarStdio
import Synchronization

/// Coalesces resync requests and spaces them out: at most one republication per `interval`
/// seconds (`ResyncInterval`), however many requests arrive. A request while one is queued joins
/// it; a request inside the interval after the last one is served once the interval ends (one
/// republication for all that arrived meanwhile). So a flood of resync lines costs one
/// republication per interval, not one per line, and the queue of pending work stays bounded.
public final class ResyncGate: Sendable {
    /// What the lock guards: whether a republication is queued, the spacing, the joined count.
    private struct Queue {
        var pending = false
        var spacing: ResyncInterval
        var joined = 0
    }

    private let queue: Mutex<Queue>
    private let action: @Sendable (String) async -> Void
    private let clock: @Sendable () -> Double

    /// `clock` is monotonic seconds (only differences are used).
    public init(interval: Double = ResyncInterval.defaultSeconds,
                clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
                _ action: @escaping @Sendable (String) async -> Void) {
        self.queue = Mutex(Queue(spacing: ResyncInterval(seconds: interval)))
        self.clock = clock
        self.action = action
    }

    /// Requests that joined a queued republication instead of causing one, so far.
    public var coalesced: Int { queue.withLock { $0.joined } }

    /// Requests a republication; returns false when it joined one already queued.
    @discardableResult
    public func request(reason: String) -> Bool {
        let now = clock()
        let wait: Double? = queue.withLock { queue in
            if queue.pending {
                queue.joined += 1
                return nil
            }
            queue.pending = true
            return queue.spacing.wait(now: now)
        }
        guard let wait else { return false }
        Task {
            if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            // Cleared before the work starts, so a request arriving during it is served afterwards.
            let now = clock()
            queue.withLock { queue in
                queue.pending = false
                queue.spacing.record(now: now)
            }
            await action(reason)
        }
        return true
    }
}
