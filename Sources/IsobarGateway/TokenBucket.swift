/// A per-connection rate limit: `rate` messages a second on average, up to `burst` at once.
///
/// It also keeps a strike count (rejected messages minus accepted ones, never below zero), so a
/// client that goes over the limit now and then only gets error frames, while one that keeps
/// flooding is told to go away (`strikes >= strikeLimit`).
public struct TokenBucket: Sendable {
    public let rate: Double
    public let burst: Double
    public let strikeLimit: Int
    public private(set) var tokens: Double
    public private(set) var strikes = 0
    private var last: Double

    /// `now` in seconds on any monotonic clock.
    public init(rate: Double, burst: Double, strikeLimit: Int, now: Double) {
        self.rate = rate
        self.burst = max(1, burst)
        self.strikeLimit = max(1, strikeLimit)
        self.tokens = max(1, burst)
        self.last = now
    }

    /// Takes one token when there is one. Returns false (and counts a strike) when there is not.
    public mutating func take(now: Double) -> Bool {
        tokens = min(burst, tokens + max(0, now - last) * rate)
        last = now
        if tokens >= 1 {
            tokens -= 1
            strikes = max(0, strikes - 1)
            return true
        }
        strikes += 1
        return false
    }

    /// Whether the client has been over the limit for long enough to be disconnected.
    public var exhausted: Bool { strikes >= strikeLimit }
}
