import IsobarCore

/// How long ``IsobarClient`` waits before its next connection attempt.
///
/// Right after a connection that was up is lost (a gateway restarting: `isobar up` restarts it
/// within a second), the client retries quickly: a uniform draw in `quick` for `quickWindow`, so
/// it is back within a few hundred milliseconds of the gateway, and a fleet of clients dropped
/// together still arrives spread over the draw's width rather than at once. Past that window, and
/// for a client that never connected, the capped exponential backoff with full jitter
/// (``Backoff``) keeps a long outage cheap for the gateway and the device's battery.
struct ReconnectSchedule: Sendable {
    var backoff: Backoff
    var quickWindow: Duration
    /// The quick retry's wait, in seconds.
    var quick: ClosedRange<Double> = 0.05...0.3

    /// Failed attempts in a row outside the quick window (the backoff's attempt number).
    private(set) var slowFailures = 0

    init(backoff: Backoff, quickWindow: Duration) {
        self.backoff = backoff
        self.quickWindow = quickWindow
    }

    /// A connection was up: the next outage starts the schedule over.
    mutating func connected() {
        slowFailures = 0
    }

    /// The wait before the next attempt, `sinceLost` after losing a connection that was up (nil:
    /// not connected since the client started), given a draw in [0, 1) (clamped).
    mutating func next(sinceLost: Duration?, jitter: Double) -> Double {
        let unit = jitter.isFinite ? min(max(jitter, 0), 1) : 0
        if let sinceLost, sinceLost < quickWindow {
            return quick.lowerBound + (quick.upperBound - quick.lowerBound) * unit
        }
        slowFailures += 1
        return backoff.delay(attempt: slowFailures, jitter: unit)
    }
}
