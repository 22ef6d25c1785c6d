import IsobarNet
/// The sample feed's clock arithmetic: which drift epoch a moment falls in and when that epoch began.
///
/// Epoch n covers [origin + n * period, origin + (n + 1) * period). Its start, rounded down to whole
/// seconds (HTTP dates have no fractions), is the `Last-Modified` of every body served during it.
public struct SampleFeedEpoch: Sendable, Equatable {
    /// Unix seconds at which epoch 0 starts (the server's start time by default).
    public var origin: Double
    /// Seconds per epoch.
    public var period: Double

    public init(origin: Double, period: Double) {
        self.origin = origin
        self.period = period > 0 && period.isFinite ? period : 30
    }

    /// The epoch at `now`; never negative (a clock set before the origin stays in epoch 0).
    public func epoch(at now: Double) -> Int {
        guard now.isFinite, now > origin else { return 0 }
        return Int(min(((now - origin) / period).rounded(.down), 1e15))
    }

    /// The start of `epoch` in whole Unix seconds.
    public func start(of epoch: Int) -> Int64 {
        Int64((origin + Double(epoch) * period).rounded(.down))
    }
}
