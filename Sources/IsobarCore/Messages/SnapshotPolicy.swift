/// The plausibility limits a complete snapshot must meet before it replaces a day's snapshot
/// (PROTOCOL.md, "Implausible snapshots"). The filter and persist take the same values, so they
/// never disagree on which snapshot a day holds.
public struct SnapshotPolicy: Sendable, Equatable {
    /// A `fetchedAt` more than this many seconds ahead of the receiver's clock is refused: a
    /// snapshot from the future would outrank every honest fetch (newest wins) until then.
    public var maxFutureSkew: Double = 120
    /// A snapshot with fewer stations than this fraction of the day's held one (an empty one
    /// always, when the held one has stations) is held back until a later fetch of the same content
    /// confirms it.
    public var minShrinkFraction: Double = 0.5
    /// The operator's `--accept-shrink`: apply shrunk and empty snapshots at once.
    public var acceptShrink = false

    public init(maxFutureSkew: Double = 120, minShrinkFraction: Double = 0.5, acceptShrink: Bool = false) {
        self.maxFutureSkew = maxFutureSkew
        self.minShrinkFraction = minShrinkFraction
        self.acceptShrink = acceptShrink
    }

    /// Whether a snapshot of `count` stations is implausibly smaller than one of `held` stations.
    public func isShrunk(count: Int, held: Int) -> Bool {
        guard held > 0 else { return false }
        return count == 0 || Double(count) < Double(held) * minShrinkFraction
    }

    /// Seconds `fetchedAt` is ahead of `now` beyond the allowed skew, or nil when it is plausible.
    public func futureExcess(fetchedAt: Double, now: Double) -> Double? {
        let ahead = fetchedAt - now
        return ahead > maxFutureSkew ? ahead : nil
    }
}
