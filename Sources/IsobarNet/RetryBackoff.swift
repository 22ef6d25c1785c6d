/// Capped exponential backoff with full jitter, for retrying a feed that keeps failing.
///
/// After the n-th consecutive failure the wait is drawn uniformly from [0, min(cap, base * 2^(n-1))):
/// the ceiling doubles so a dead feed is not hammered, the cap keeps a long outage from pushing the
/// next try hours away, and the jitter spreads fetchers that failed together (the AWS "full jitter"
/// scheme) so they do not return in lockstep.
public struct RetryBackoff: Sendable, Equatable {
    /// The ceiling after the first failure, in seconds.
    public var base: Double
    /// The largest ceiling, in seconds.
    public var cap: Double

    public init(base: Double = 1, cap: Double = 300) {
        self.base = max(0, base)
        self.cap = max(self.base, cap)
    }

    /// The upper bound of the wait after `attempt` consecutive failures (attempt 1 is the first).
    public func ceiling(attempt: Int) -> Double {
        let exponent = max(0, min(attempt - 1, 62))
        let scaled = base * Double(UInt64(1) << UInt64(exponent))
        return min(cap, scaled)
    }

    /// The wait after `attempt` consecutive failures, given a jitter draw in [0, 1).
    public func delay(attempt: Int, jitter: Double) -> Double {
        let unit = jitter.isFinite ? min(max(jitter, 0), 1) : 0
        return ceiling(attempt: attempt) * unit
    }
}
