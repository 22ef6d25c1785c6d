/// Capped exponential backoff: the one schedule for every retry in the project, restarting a
/// process that keeps exiting (`isobar up`, `isobar plug`) and retrying a feed that keeps failing
/// (`isobar fetch`).
///
/// After the n-th consecutive failure the ceiling is `initial * 2^(n-1)`, at most `maximum`: a
/// crash loop or a dead feed costs little CPU, log volume and load on the far end, while a one-off
/// failure is retried almost at once.
/// - Restarts (``nextDelay(afterRunningFor:)``) wait the ceiling itself, and a run that lasted at
///   least `healthyAfter` resets the sequence: the next crash is a new, unrelated failure rather
///   than the continuation of an old loop.
/// - Feed retries (``delay(attempt:jitter:)``) wait a uniform draw in [0, ceiling): "full jitter"
///   (the AWS scheme), so fetchers that failed together do not return in lockstep.
public struct Backoff: Sendable, Equatable {
    /// The ceiling after the first failure.
    public var initial: Duration
    /// The largest ceiling.
    public var maximum: Duration
    /// How long a run must last to reset the restart sequence.
    public var healthyAfter: Duration
    /// Consecutive short runs so far (restarts).
    public private(set) var failures: Int = 0

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5), healthyAfter: Duration = .seconds(10)) {
        self.initial = max(.zero, initial)
        self.maximum = max(self.initial, maximum)
        self.healthyAfter = healthyAfter
    }

    /// The ceiling after `attempt` consecutive failures (attempt 1 is the first; below 1 counts as 1).
    public func ceiling(attempt: Int) -> Duration {
        var delay = initial
        for _ in 0..<min(max(attempt - 1, 0), 62) where delay < maximum {
            delay *= 2
        }
        return min(delay, maximum)
    }

    /// Restarts: the wait before the next one, given how long the run that just ended lasted.
    public mutating func nextDelay(afterRunningFor runTime: Duration) -> Duration {
        if runTime >= healthyAfter { failures = 0 }
        failures += 1
        return ceiling(attempt: failures)
    }

    /// Forgets earlier failures.
    public mutating func reset() {
        failures = 0
    }

    /// Retries: the wait after `attempt` consecutive failures, given a draw in [0, 1) (clamped;
    /// not finite counts as 0), in seconds.
    public func delay(attempt: Int, jitter: Double) -> Double {
        let unit = jitter.isFinite ? min(max(jitter, 0), 1) : 0
        return ceiling(attempt: attempt).timeInterval * unit
    }
}
