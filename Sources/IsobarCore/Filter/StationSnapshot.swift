/// A complete, immutable snapshot of one day's stations with its spatial index.
///
/// Shared by reference between all clients (a class, never copied); replaced whole when a newer
/// complete snapshot arrives.
public final class StationSnapshot {
    public let day: Day
    public let id: String
    /// Metadata may be refreshed when the same content arrives again (from the feed after the store).
    public internal(set) var source: SnapshotEnd.Source
    public internal(set) var fetchedAt: Double
    public internal(set) var ageSeconds: Double
    public let stations: [Station]
    /// Interned key of each station (see `KeyInterner`), parallel to `stations`.
    public let keys: [UInt64]
    public let fingerprints: [UInt64]
    public let grid: SpatialGrid
    private let positionByID: [String: Int32]

    public init(end: SnapshotEnd, stations: [Station], interner: inout KeyInterner) {
        day = end.day
        id = end.snapshot
        source = end.source
        fetchedAt = end.fetchedAt
        ageSeconds = end.ageSeconds
        self.stations = stations
        keys = stations.map { interner.key(for: $0.id) }
        fingerprints = stations.map(\.fingerprint)
        grid = SpatialGrid(coordinates: stations.map(\.coordinate))
        var positions: [String: Int32] = [:]
        positions.reserveCapacity(stations.count)
        for (i, station) in stations.enumerated() { positions[station.id] = Int32(i) }
        positionByID = positions
    }

    public func position(of id: String) -> Int? {
        positionByID[id].map(Int.init)
    }
}

/// Gives every station id a small integer key, stable for the life of the filter, so per-client
/// state is a dictionary of integers rather than of strings.
public struct KeyInterner: Sendable {
    private var keys: [String: UInt64] = [:]
    private var ids: [String] = []

    public init() {}

    public mutating func key(for id: String) -> UInt64 {
        if let key = keys[id] { return key }
        let key = UInt64(ids.count)
        keys[id] = key
        ids.append(id)
        return key
    }

    public func id(for key: UInt64) -> String? {
        key < UInt64(ids.count) ? ids[Int(key)] : nil
    }
}
