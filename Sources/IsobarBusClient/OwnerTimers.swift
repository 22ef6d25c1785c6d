/// The timers of a thread that owns libzmq sockets (a reactor's timers, as in czmq's zloop): each a
/// deadline on the monotonic clock, repeating or not. The owner waits in `zmq_poll` until the
/// earliest deadline (``timeout(now:)``; no timeout at all when none is set) and then runs what is
/// due (``fire(now:)``), so it wakes for a timer exactly when one is due and never on a tick to look.
///
/// Used only by its owner thread (not thread-safe); others add timers by posting to the owner and
/// signalling its wake descriptor.
public struct OwnerTimers<Action> {
    struct Entry {
        var deadline: ContinuousClock.Instant
        /// Nil: runs once.
        let interval: Duration?
        let action: Action
    }

    private var entries: [Entry] = []

    public init() {}

    /// Runs `action` at `deadline`, then every `interval` after it when one is given.
    public mutating func add(at deadline: ContinuousClock.Instant, every interval: Duration? = nil, _ action: Action) {
        entries.append(Entry(deadline: deadline, interval: interval, action: action))
    }

    /// Whether no timer is set.
    public var isEmpty: Bool { entries.isEmpty }

    /// How long the owner may wait before the next timer is due: nil when no timer is set, zero when
    /// one is already due.
    public func timeout(now: ContinuousClock.Instant) -> Duration? {
        guard let next = entries.map(\.deadline).min() else { return nil }
        return max(.zero, now.duration(to: next))
    }

    /// The actions due at `now`, in deadline order; a repeating timer is set again one interval
    /// later (from `now` when it fell more than an interval behind: no burst of catch-up runs),
    /// a one-shot timer is removed.
    public mutating func fire(now: ContinuousClock.Instant) -> [Action] {
        var due: [(ContinuousClock.Instant, Action)] = []
        var kept: [Entry] = []
        for var entry in entries {
            guard entry.deadline <= now else {
                kept.append(entry)
                continue
            }
            due.append((entry.deadline, entry.action))
            if let interval = entry.interval {
                entry.deadline = entry.deadline + interval
                if entry.deadline <= now { entry.deadline = now + interval }
                kept.append(entry)
            }
        }
        entries = kept
        return due.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
