#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a viewport shows: single stations, and clusters where there are too many to show singly.
public struct VisibleItems: Sendable {
    /// Positions in the snapshot of stations shown singly.
    public var stations: [Int32] = []
    public var clusters: [Cluster] = []
    public var total: Int { stations.count + clusters.count }
}

/// Grid clustering in the style of Mapbox's supercluster, simplified for a server that answers
/// one box at a time: when a region holds more than `limit` stations, they are binned into cells
/// of a grid anchored at (-90°, -180°) whose cell size is a power of two in degrees, chosen so
/// the region spans about sqrt(limit) cells on its longer side. Zooming in halves the cells, so
/// clusters split; panning keeps cells (and their ids) fixed. A cell with one station shows it.
public enum Clusterer {
    public static func items(in region: Region, of snapshot: StationSnapshot, limit: Int) -> VisibleItems {
        let found = snapshot.grid.indices(in: region)
        if found.count <= limit { return VisibleItems(stations: found, clusters: []) }
        return cluster(found, region: region, snapshot: snapshot, limit: limit)
    }

    static func level(for region: Region, limit: Int) -> Int {
        let perSide = max(1.0, Double(Int(Double(limit).squareRoot()) - 1))
        let longitudeExtent = region.allLongitudes ? 360 : min(360, region.longitudeDelta)
        let extent = max(region.maxLatitude - region.minLatitude, longitudeExtent)
        let cell = max(extent / perSide, 1e-6)
        // cell size 2^level degrees, rounded up
        return max(-40, min(9, Int(ceil(log2(cell)))))
    }

    static func cluster(_ found: [Int32], region: Region, snapshot: StationSnapshot, limit: Int) -> VisibleItems {
        let level = level(for: region, limit: limit)
        let cellSize = pow(2.0, Double(level))
        let center = region.center.longitude
        var cells: [UInt64: ClusterAccumulator] = [:]
        cells.reserveCapacity(min(found.count, limit * 2))
        for index in found {
            let station = snapshot.stations[Int(index)]
            let latitude = station.coordinate.latitude
            let longitude = station.coordinate.longitude
            let row = Int((latitude + 90) / cellSize)
            let column = Int((longitude + 180) / cellSize)
            // Average longitudes on the region's side of the antimeridian.
            var unwrapped = longitude
            if unwrapped - center > 180 { unwrapped -= 360 } else if center - unwrapped > 180 { unwrapped += 360 }
            let key = Cluster.key(level: level, row: row, column: column)
            cells[key, default: ClusterAccumulator()].add(station, index: index, unwrappedLongitude: unwrapped)
        }
        var items = VisibleItems()
        for (key, accumulator) in cells {
            if accumulator.count == 1 {
                items.stations.append(accumulator.first)
            } else {
                items.clusters.append(accumulator.cluster(key: key))
            }
        }
        return items
    }
}
