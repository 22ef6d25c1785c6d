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
    /// Whether `stations` is known to be strictly ascending (a view with no clusters over a grid
    /// walked in position order, ``SpatialGrid/isCellOrdered``, as every snapshot's is): the
    /// filter then diffs it by position without checking its order.
    public internal(set) var stationsAscending = false
    public var total: Int { stations.count + clusters.count }
}

/// Grid clustering in the style of Mapbox's supercluster, simplified for a server that answers
/// one box at a time: when a region holds more than `limit` stations, they are binned into cells
/// of a grid anchored at (-90°, -180°) whose cell size is a power of two in degrees, chosen so
/// the region spans about sqrt(limit) cells on its longer side. Zooming in halves the cells, so
/// clusters split; panning keeps cells (and their ids) fixed. A cell with one station shows it.
///
/// Cost grows with the grid cells a region touches, not with the stations in it: a grid cell
/// whose stations are all inside the region, in one cluster cell and on one side of the
/// antimeridian counts (and joins its cluster) whole from the snapshot's `CellSummaries`; only
/// the cells the region's edge cuts, and cells that straddle a cluster cell's edge (every cell
/// when clusters are smaller than grid cells), are visited station by station.
public enum Clusterer {
    public static func items(in region: Region, of snapshot: StationSnapshot, limit: Int) -> VisibleItems {
        if let stations = snapshot.grid.indices(in: region, limit: limit) {
            return VisibleItems(stations: stations, clusters: [], stationsAscending: snapshot.grid.isCellOrdered)
        }
        return cluster(region: region, snapshot: snapshot, limit: limit)
    }

    /// The finest clustering level (see `level(for:limit:)`).
    static let minimumLevel = -15

    static func level(for region: Region, limit: Int) -> Int {
        let perSide = max(1.0, Double(Int(Double(limit).squareRoot()) - 1))
        let longitudeExtent = region.allLongitudes ? 360 : min(360, region.longitudeDelta)
        let extent = max(region.maxLatitude - region.minLatitude, longitudeExtent)
        let cell = max(extent / perSide, 1e-6)
        // Cell size 2^level degrees, rounded up. Not below 2^-15 (~3.4 m of latitude): `Cluster.key`
        // holds a row and a column in 24 bits each, and 360 / 2^-16 columns would not fit.
        return max(minimumLevel, min(9, Int(ceil(log2(cell)))))
    }

    /// The number of stations inside `region`; once it is over `bound`, some number over `bound`
    /// (the caller only needs to know it will cluster).
    static func count(in region: Region, of snapshot: StationSnapshot, stoppingAbove bound: Int) -> Int {
        let grid = snapshot.grid
        let cells = snapshot.cells
        let columnRanges = grid.columnRanges(in: region)
        var count = 0
        for row in grid.rowRange(in: region) {
            for columnRange in columnRanges {
                for cell in (row * grid.columns + columnRange.lowerBound)...(row * grid.columns + columnRange.upperBound) {
                    let slot = cells.slots[cell]
                    guard slot >= 0 else { continue }
                    if cells.summaries[Int(slot)].isInside(region) {
                        count += Int(cells.summaries[Int(slot)].sums.count)
                    } else {
                        for k in grid.positions(ofCell: cell) where region.contains(latitude: grid.latitudes[k], longitude: grid.longitudes[k]) {
                            count += 1
                        }
                    }
                }
            }
            if count > bound { return count }
        }
        return count
    }

    static func cluster(region: Region, snapshot: StationSnapshot, limit: Int) -> VisibleItems {
        let grid = snapshot.grid
        let cells = snapshot.cells
        let level = LevelCells(region: region, level: level(for: region, limit: limit))
        let center = region.center.longitude
        // Accumulators in the order their cells are first reached, and each level cell's slot.
        var slotOfCell = [Int32](repeating: -1, count: level.count)
        var accumulators: [ClusterAccumulator] = []
        var cellOfSlot: [Int] = []
        func slot(_ index: Int) -> Int {
            let existing = slotOfCell[index]
            if existing >= 0 { return Int(existing) }
            slotOfCell[index] = Int32(accumulators.count)
            accumulators.append(ClusterAccumulator())
            cellOfSlot.append(index)
            return accumulators.count - 1
        }
        let columnRanges = grid.columnRanges(in: region)
        snapshot.stations.withUnsafeBufferPointer { stations in
            guard let stations = stations.baseAddress else { return }
            for row in grid.rowRange(in: region) {
                for columnRange in columnRanges {
                    for cell in (row * grid.columns + columnRange.lowerBound)...(row * grid.columns + columnRange.upperBound) {
                        let summarySlot = cells.slots[cell]
                        guard summarySlot >= 0 else { continue }
                        let summary = cells.summaries[Int(summarySlot)]
                        if summary.isInside(region) {
                            let levelRow = level.row(summary.minLatitude)
                            let levelColumn = level.column(summary.minLongitude)
                            let shift = unwrapShift(summary.minLongitude, center: center)
                            if levelRow == level.row(summary.maxLatitude), levelColumn == level.column(summary.maxLongitude),
                               shift == unwrapShift(summary.maxLongitude, center: center) {
                                let member = grid.order[Int(grid.cellStart[cell])]
                                accumulators[slot(level.index(row: levelRow, column: levelColumn))]
                                    .add(summary.sums, longitudeShift: shift, member: member)
                                continue
                            }
                        }
                        for k in grid.positions(ofCell: cell) {
                            let latitude = grid.latitudes[k]
                            let longitude = grid.longitudes[k]
                            guard region.contains(latitude: latitude, longitude: longitude) else { continue }
                            let index = grid.order[k]
                            accumulators[slot(level.index(row: level.row(latitude), column: level.column(longitude)))]
                                .add(stations + Int(index), index: index, latitude: latitude,
                                     unwrappedLongitude: longitude + unwrapShift(longitude, center: center))
                        }
                    }
                }
            }
        }
        var items = VisibleItems()
        for (slot, accumulator) in accumulators.enumerated() {
            if accumulator.sums.count == 1 {
                items.stations.append(accumulator.first)
            } else {
                items.clusters.append(accumulator.cluster(key: level.key(ofIndex: cellOfSlot[slot])))
            }
        }
        return items
    }

    /// What to add to `longitude` to average it on the side of the antimeridian of a region
    /// centred at `center`: -360, 0 or 360. Non-increasing in `longitude`, so equal at both ends
    /// of a grid cell's bounding box means equal for every station in it.
    @inline(__always)
    static func unwrapShift(_ longitude: Double, center: Double) -> Double {
        if longitude - center > 180 { return -360 }
        if center - longitude > 180 { return 360 }
        return 0
    }
}
