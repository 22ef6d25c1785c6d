/// The rate at which a snapshot publisher (persist, fetch) honours bare `resync` requests: at most
/// one republication per `seconds`, however many requests arrive (PROTOCOL.md, "Resync"). Each
/// republication is every station of both days, so without this bound a flood of small requests
/// made the publishers write without end (25,000 requests in 25 s: persist's plug at 1.5 GB).
/// Requests inside the interval are dropped and counted; a requester that still lacks data asks
/// again on its own schedule (the filter does). Pure: the caller passes its clock in.
public struct ResyncInterval: Sendable, Equatable {
    /// The default interval in seconds (`--resync-interval` of persist and fetch).
    public static let defaultSeconds = 1.0

    public let seconds: Double
    private var last = -Double.infinity
    /// Requests honoured so far.
    public private(set) var honoured = 0
    /// Requests dropped so far.
    public private(set) var dropped = 0

    public init(seconds: Double = ResyncInterval.defaultSeconds) {
        self.seconds = seconds
    }

    /// Whether a request arriving at `now` is honoured (and starts a new interval) or dropped.
    public mutating func admit(now: Double) -> Bool {
        guard !(now - last < seconds) else {
            dropped += 1
            return false
        }
        last = now
        honoured += 1
        return true
    }

    /// Records a republication made at `now` (one the caller deferred until `wait` allowed it).
    public mutating func record(now: Double) {
        last = now
        honoured += 1
    }

    /// Seconds from `now` until a request would be honoured (0: at once).
    public func wait(now: Double) -> Double {
        max(0, last + seconds - now)
    }
}
