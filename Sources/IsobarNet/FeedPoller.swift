import IsobarCore
/// The polling policy for one feed source, with no I/O: when to fetch next, which conditional
/// headers to send, whether new content is a change, and how long to back off after a failure.
///
/// The fetcher drives it: `begin()` before a request, `complete(_:now:jitter:)` with what the
/// request produced; the returned `Decision` says what to publish. Times are Unix seconds passed
/// in by the caller, so tests replay any schedule without waiting.
public struct FeedPoller: Sendable {
    public enum State: Sendable, Equatable {
        /// Never fetched yet: due at once.
        case idle
        /// A request is in flight; `attempt` counts it among consecutive tries (1 = no failure before it).
        case fetching(attempt: Int)
        /// Healthy: the next regular poll is at `until`.
        case waiting(until: Double)
        /// `attempt` consecutive failures so far; retry at `until`.
        case backingOff(attempt: Int, until: Double)
    }

    /// What one request produced, already reduced to what the policy needs.
    public enum Outcome: Sendable, Equatable {
        /// HTTP 304 (or an unchanged file).
        case notModified
        /// A body that parsed into a snapshot with this id, and the validators that came with it.
        case content(snapshotID: String, validators: ConditionalValidators)
        /// Anything else: network error, bad status, oversized or unparsable body.
        case failed(reason: String)
        /// A failure whose server said when to come back (429/503 with `Retry-After`, seconds).
        case throttled(reason: String, retryAfter: Double)
    }

    /// What the fetcher should publish.
    public enum Decision: Sendable, Equatable {
        /// New content: publish the snapshot and an `ok` status.
        case publish(retryIn: Double)
        /// Same content as the last published snapshot. `recovered` is true when this ends a run
        /// of failures, which is worth a status line; otherwise only a log line.
        case unchanged(recovered: Bool, retryIn: Double)
        /// Publish nothing but a `failed` status.
        case failed(reason: String, attempt: Int, retryIn: Double)
    }

    public let interval: Double
    public let backoff: Backoff
    public private(set) var state: State = .idle
    public private(set) var validators = ConditionalValidators()
    /// Id of the last snapshot published from this source.
    public private(set) var snapshotID: String?

    public init(interval: Double, backoff: Backoff) {
        self.interval = interval
        self.backoff = backoff
    }

    /// Consecutive failures so far (0 when healthy).
    public var failures: Int {
        switch state {
        case .idle, .waiting: 0
        case .fetching(let attempt): attempt - 1
        case .backingOff(let attempt, _): attempt
        }
    }

    /// Seconds from `now` until the next request is due (0 when due or in flight).
    public func secondsUntilDue(now: Double) -> Double {
        switch state {
        case .idle, .fetching: 0
        case .waiting(let until), .backingOff(_, let until): max(0, until - now)
        }
    }

    /// Marks a request as started and returns the validators to make it conditional.
    public mutating func begin() -> ConditionalValidators {
        state = .fetching(attempt: failures + 1)
        return validators
    }

    /// Records what the request produced and decides what to publish and when to try next.
    public mutating func complete(_ outcome: Outcome, now: Double, jitter: Double) -> Decision {
        let attempt: Int
        if case .fetching(let current) = state { attempt = current } else { attempt = failures + 1 }
        let recovered = attempt > 1
        switch outcome {
        case .notModified:
            guard snapshotID != nil else {
                return fail("the server answered 304 Not Modified, but no earlier copy was kept", attempt: attempt, now: now, jitter: jitter)
            }
            state = .waiting(until: now + interval)
            return .unchanged(recovered: recovered, retryIn: interval)
        case .content(let id, let newValidators):
            validators = newValidators
            state = .waiting(until: now + interval)
            if id == snapshotID { return .unchanged(recovered: recovered, retryIn: interval) }
            snapshotID = id
            return .publish(retryIn: interval)
        case .failed(let reason):
            return fail(reason, attempt: attempt, now: now, jitter: jitter)
        case .throttled(let reason, let retryAfter):
            return fail(reason, attempt: attempt, now: now, jitter: jitter, atLeast: min(max(0, retryAfter), Self.maxRetryAfter))
        }
    }

    /// The longest `Retry-After` honoured, seconds: a server cannot silence a source for days.
    public static let maxRetryAfter = 3600.0

    private mutating func fail(_ reason: String, attempt: Int, now: Double, jitter: Double, atLeast: Double = 0) -> Decision {
        let wait = max(backoff.delay(attempt: attempt, jitter: jitter), atLeast)
        state = .backingOff(attempt: attempt, until: now + wait)
        return .failed(reason: reason, attempt: attempt, retryIn: wait)
    }
}
