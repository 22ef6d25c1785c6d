/// Capped exponential backoff for restarting a process that keeps exiting.
///
/// The first restart waits `initial`; each further one doubles the wait up to `maximum`, so a crash loop
/// costs little CPU and log volume while a one-off crash is recovered from almost at once. A run that
/// lasted at least `healthyAfter` counts as healthy and resets the sequence: the next crash is treated as
/// a new, unrelated failure rather than as the continuation of an old loop.
public struct Backoff: Sendable, Equatable {
    /// Wait before the first restart.
    public var initial: Duration
    /// Upper bound for any wait.
    public var maximum: Duration
    /// How long a run must last to reset the sequence.
    public var healthyAfter: Duration
    /// Consecutive short runs so far.
    public private(set) var failures: Int = 0

    public init(
        initial: Duration = .milliseconds(100),
        maximum: Duration = .seconds(5),
        healthyAfter: Duration = .seconds(10)
    ) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.healthyAfter = healthyAfter
    }

    /// The wait before the next restart, given how long the run that just ended lasted.
    public mutating func nextDelay(afterRunningFor runTime: Duration) -> Duration {
        if runTime >= healthyAfter { failures = 0 }
        var delay = initial
        for _ in 0..<min(failures, 62) where delay < maximum {
            delay *= 2
        }
        failures += 1
        return min(delay, maximum)
    }

    /// Forgets earlier failures.
    public mutating func reset() {
        failures = 0
    }
}
