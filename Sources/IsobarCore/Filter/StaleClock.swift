/// When the stations of one snapshot turn stale: a station is stale when its `observedAt` (or,
/// when the feed gives none, the snapshot's `fetchedAt`) is older than the filter's `--stale-after`.
///
/// Built once with the snapshot. It holds only the observation times that exist (none for an onX
/// feed, whose stations all age with the snapshot), sorted, so the filter can count stale stations
/// in O(log n) on its timer and notice the moment any station crosses the line.
public struct StaleClock: Sendable {
    /// The `observedAt` of every station that has one, ascending.
    let observed: [Double]
    /// How many stations have none (they age with `fetchedAt`).
    let unobserved: Int

    init(stations: [Station]) {
        var observed: [Double] = []
        stations.withUnsafeBufferPointer { records in  // by pointer: the subscript copied each record
            for i in records.indices { if let time = records[i].details?.observedAt { observed.append(time) } }
        }
        observed.sort()
        self.observed = observed
        unobserved = stations.count - observed.count
    }

    /// True when every station ages with the snapshot (one answer for all of them).
    public var isUniform: Bool { observed.isEmpty }

    /// Whether `station` is stale at `threshold` (now minus `--stale-after`, wall clock).
    @inline(__always)
    public static func isStale(_ station: Station, threshold: Double, fetchedAt: Double) -> Bool {
        (station.details?.observedAt ?? fetchedAt) < threshold
    }

    /// How many stations are stale at `threshold`.
    public func staleCount(threshold: Double, fetchedAt: Double) -> Int {
        var low = 0, high = observed.count
        while low < high {
            let middle = (low + high) / 2
            if observed[middle] < threshold { low = middle + 1 } else { high = middle }
        }
        return low + (fetchedAt < threshold ? unobserved : 0)
    }
}
