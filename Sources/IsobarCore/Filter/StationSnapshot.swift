/// A complete, immutable snapshot of one day's stations with its spatial index.
///
/// Shared by reference between all clients (a class, never copied); replaced whole when a newer
/// complete snapshot arrives.
public final class StationSnapshot {
    public let day: Day
    public let id: String
    /// Metadata may be refreshed when the same content arrives again (from the feed after the store).
    /// Set together, by ``refresh(source:fetchedAt:ageSeconds:)``.
    public private(set) var source: SnapshotEnd.Source
    public private(set) var fetchedAt: Double
    public private(set) var ageSeconds: Double
    /// `info`'s four members as `SnapshotInfo.writeMembers` writes them (`"snapshot":…,"ageSeconds":…`,
    /// no leading comma), written when the snapshot is made and when its provenance is refreshed
    /// (once for all three members: ``refresh(source:fetchedAt:ageSeconds:)``),
    /// and copied into every `visible` head (`Visible.writeHead(to:provenance:)`): printing them
    /// (two strings, a ten-digit `fetchedAt`) was ~2,000 instructions of every update. ~100 bytes a
    /// snapshot.
    private(set) var infoMembers: [UInt8] = []
    public let stations: [Station]
    /// Interned key of each station (see `KeyInterner`), parallel to `stations`.
    public let keys: [UInt64]
    public let fingerprints: [UInt64]
    public let grid: SpatialGrid
    /// Per-grid-cell sums, so dense viewports are clustered by visiting cells, not stations.
    /// Built here, with the grid, rather than on the first dense request: it is one sequential
    /// pass (under 0.1 s at a million stations, beside seconds of parsing them), it keeps the
    /// snapshot immutable and shareable without a lock, and the first client to look at a
    /// continent gets the same answer time as every later one. It holds 1.4 MB at a million
    /// stations (11,188 non-empty 1° cells), less than one dense request used to allocate.
    public let cells: CellSummaries
    /// Nearest-station search over `grid` (bounding caps per cell; see `NearestIndex`).
    public let nearest: NearestIndex
    /// Name and id search (the folded distinct names; see `NameIndex`).
    public let names: NameIndex
    /// When its stations turn stale (empty for a feed without observation times).
    public let staleClock: StaleClock
    /// Position of each interned key in `stations` (-1: not in this snapshot). An array indexed by
    /// key instead of a second dictionary of strings: 4 bytes a station instead of ~50.
    private let positionByKey: [Int32]
    private let interner: KeyInterner

    /// Each station's `visible` item bytes, kept on first use (see `StationItemBytes`): per
    /// snapshot, so a feed change, which is a new snapshot, is written afresh.
    let itemBytes: StationItemBytes

    /// Ids that appeared more than once in the snapshot as received (each listed once); only the
    /// first of each (lowest `seq`) was kept.
    public let duplicateIDs: [String]

    /// Takes `stations` over (`consuming`): the records are laid out in grid order in place, so
    /// the caller must not keep the array (a second reference would copy all of it, 88 MB and a
    /// retain of every name at a million stations, on the first move).
    /// `itemByteLimit`: the bound on the `visible` item bytes kept for its stations (`StationItemBytes`).
    public init(end: SnapshotEnd, stations received: consuming [Station], interner: KeyInterner,
                itemByteLimit: Int = StationItemBytes.defaultByteLimit) {
        day = end.day
        id = end.snapshot
        source = end.source
        fetchedAt = end.fetchedAt
        ageSeconds = end.ageSeconds
        interner.reserve(received.count)
        var stations = consume received
        // Loops read fields through the array (`stations[i].id`) rather than iterating it: a
        // `for station in` or `map` copies each whole `Station` (three references retained and
        // released), a fifth of a million-station load.
        var keys = stations.withUnsafeBufferPointer { records in interner.keys(for: records.lazy.map { $0.id }) }
        var positions = [Int32](repeating: -1, count: interner.count)
        var duplicates: [String] = []
        for (i, key) in keys.enumerated() {
            if positions[Int(key)] >= 0 {
                duplicates.append(stations[i].id)
            } else {
                positions[Int(key)] = Int32(i)
            }
        }
        if !duplicates.isEmpty {
            // Ids are unique within a snapshot (PROTOCOL.md): keep the first of each, so every id
            // is one annotation and a diff never removes an id that is still shown.
            let kept = keys.indices.filter { positions[Int(keys[$0])] == Int32($0) }
            stations = kept.map { stations[$0] }
            keys = kept.map { keys[$0] }
        }
        duplicateIDs = Array(Set(duplicates)).sorted()
        // Records in grid order (cell by cell, `seq` order within a cell), so the stations of
        // one viewport lie together in memory: a viewport's records, keys and fingerprints are
        // a few contiguous runs instead of scattered cache misses.
        // Every answer is unchanged: the grid walks (row, column, `seq`) either way, and removals
        // are ordered by key, which keeps the order ids were first seen.
        // Coordinates read through a pointer: the array's subscript copied whole records here
        // (three references retained and released each).
        let (cellStart, order) = stations.withUnsafeBufferPointer { records in
            SpatialGrid.cellSort(of: records.indices.lazy.map { records[$0].coordinate })
        }
        Self.permute(&stations, by: order)
        keys = order.map { keys[Int($0)] }
        for (i, key) in keys.enumerated() { positions[Int(key)] = Int32(i) }  // after any dropped duplicates too
        self.stations = stations
        self.keys = keys
        fingerprints = Self.fingerprints(of: stations)
        // The records are in cell order now: the grid takes the sort's cell starts instead of
        // sorting them again (its order is the identity).
        grid = stations.withUnsafeBufferPointer { records in  // no temporary copy
            SpatialGrid(cellOrdered: records.indices.lazy.map { records[$0].coordinate }, cellStart: cellStart)
        }
        cells = CellSummaries(grid: grid, stations: stations)
        nearest = NearestIndex(grid: grid)
        names = NameIndex(stations: stations, idsFoundElsewhere: true)
        staleClock = StaleClock(stations: stations)
        positionByKey = positions
        self.interner = interner
        itemBytes = StationItemBytes(count: stations.count, byteLimit: itemByteLimit)
        infoMembers = Self.members(of: info)
    }

    /// Takes a newer fetch's provenance (the same content fetched again later) and writes
    /// `infoMembers` afresh, once.
    func refresh(source: SnapshotEnd.Source, fetchedAt: Double, ageSeconds: Double) {
        self.source = source
        self.fetchedAt = fetchedAt
        self.ageSeconds = ageSeconds
        infoMembers = Self.members(of: info)
    }

    /// The bytes `info.writeMembers` writes into an empty writer.
    private static func members(of info: SnapshotInfo) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        info.writeMembers(to: &writer)
        return writer.bytes
    }

    /// Each station's `fingerprint`, two at a time (``Station/fingerprints(_:_:)``: two
    /// independent multiply chains interleaved run in about the time of one).
    static func fingerprints(of stations: [Station]) -> [UInt64] {
        var result = [UInt64](repeating: 0, count: stations.count)
        stations.withUnsafeBufferPointer { records in
            var i = 0
            while i + 1 < records.count {
                (result[i], result[i + 1]) = Station.fingerprints(records[i], records[i + 1])
                i += 2
            }
            if i < records.count { result[i] = records[i].fingerprint }
        }
        return result
    }

    /// Rearranges `stations` in place so that `stations[i]` becomes the record that was at
    /// `order[i]` (`order` a permutation), by following its cycles: no second array of records
    /// (88 MB at a million stations). Each record is moved once, as raw memory: swapping through
    /// the array copied it (its strings retained and released) three times, which made this the
    /// largest single step of a million-station load.
    static func permute(_ stations: inout [Station], by order: [Int32]) {
        precondition(order.count == stations.count, "permute: the order must be a permutation of the records")
        var placed = [Bool](repeating: false, count: stations.count)
        stations.withUnsafeMutableBufferPointer { records in
            guard let base = records.baseAddress else { return }
            order.withUnsafeBufferPointer { order in
                placed.withUnsafeMutableBufferPointer { placed in
                    for start in 0..<order.count where !placed[start] {
                        placed[start] = true
                        guard Int(order[start]) != start else { continue }
                        // The cycle start -> order[start] -> ...: each slot takes its source's record,
                        // and the last slot of the cycle the record that was at `start`.
                        let first = (base + start).move()
                        var slot = start
                        while true {
                            let source = Int(order[slot])
                            if source == start {
                                (base + slot).initialize(to: first)
                                break
                            }
                            (base + slot).moveInitialize(from: base + source, count: 1)
                            placed[source] = true
                            slot = source
                        }
                    }
                }
            }
        }
    }

    /// Writes the id of each interned key in `keys` as an array element, copied from the kept
    /// item bytes of this snapshot's station with that key (`StationItemBytes.writeQuotedIDs`); a
    /// key without one goes to `otherwise`.
    func writeKeptIDs(of keys: [UInt64], into out: inout JSONWriter, otherwise: (UInt64, inout JSONWriter) -> Void) {
        itemBytes.writeQuotedIDs(ofKeys: keys, positionByKey: positionByKey, into: &out, otherwise: otherwise)
    }

    public func position(of id: String) -> Int? {
        guard let key = interner.existingKey(for: id), Int(key) < positionByKey.count else { return nil }
        let position = positionByKey[Int(key)]
        return position >= 0 ? Int(position) : nil
    }
}

extension StationSnapshot {
    /// The provenance keys every answer made from this snapshot carries.
    public var info: SnapshotInfo {
        SnapshotInfo(id: id, source: source.rawValue, fetchedAt: fetchedAt, ageSeconds: ageSeconds)
    }
}
