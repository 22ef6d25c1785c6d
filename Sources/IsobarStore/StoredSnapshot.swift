import IsobarCore

/// A complete snapshot read back from the store: what its end marker said, when it was stored,
/// and its stations in `seq` order.
public struct StoredSnapshot: Sendable, Equatable {
    public var day: Day
    public var id: String
    /// Unix seconds when the feed data was fetched (the age a client shows is measured from here).
    public var fetchedAt: Double
    /// Unix seconds when this store wrote it.
    public var storedAt: Double
    public var stations: [Station]

    public init(day: Day, id: String, fetchedAt: Double, storedAt: Double, stations: [Station]) {
        self.day = day
        self.id = id
        self.fetchedAt = fetchedAt
        self.storedAt = storedAt
        self.stations = stations
    }

    /// The end marker for republishing it at `now`: source `store`, the original `fetchedAt`, and
    /// its age at that moment (never negative, even if the clock went backwards).
    public func end(now: Double) -> SnapshotEnd {
        SnapshotEnd(day: day, snapshot: id, count: stations.count, source: .store,
                    fetchedAt: fetchedAt, ageSeconds: max(0, now - fetchedAt))
    }

    /// Writes every station line and the end marker, as a replay from the store at `now`.
    public func write(now: Double, into writer: inout JSONWriter) {
        OnXFeed.writeSnapshot(day: day, stations: stations, source: .store, fetchedAt: fetchedAt,
                              ageSeconds: max(0, now - fetchedAt), id: id, into: &writer)
    }
}
