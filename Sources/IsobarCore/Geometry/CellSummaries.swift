/// A `CellSummary` for every non-empty cell of a snapshot's `SpatialGrid`, so a viewport over
/// hundreds of thousands of stations is counted and clustered by visiting cells, with stations
/// visited only in the cells the region's edge cuts.
///
/// Compact because memory is tight at a million stations: an `Int32` slot per grid cell
/// (260 KB at 1°) and one summary (112 bytes) per non-empty cell only.
public struct CellSummaries: Sendable {
    /// Index in `summaries` of each grid cell's summary; -1 for an empty cell.
    let slots: [Int32]
    let summaries: [CellSummary]

    /// Sums every station into its grid cell's summary, walking `stations` in their own order
    /// (sequential memory) rather than in grid order.
    public init(grid: SpatialGrid, stations: [Station]) {
        let cellCount = grid.cellStart.count - 1
        var slots = [Int32](repeating: -1, count: cellCount)
        var used = 0
        for cell in 0..<cellCount where grid.cellStart[cell + 1] > grid.cellStart[cell] {
            slots[cell] = Int32(used)
            used += 1
        }
        var summaries = [CellSummary](repeating: CellSummary(), count: used)
        stations.withUnsafeBufferPointer { stations in
            guard let first = stations.baseAddress else { return }
            for station in first..<(first + stations.count) {
                let cell = SpatialGrid.cell(station.pointee.coordinate.latitude, station.pointee.coordinate.longitude,
                                            grid.cellsPerDegree, grid.rows, grid.columns)
                summaries[Int(slots[cell])].add(station)
            }
        }
        self.slots = slots
        self.summaries = summaries
    }

    /// Number of non-empty grid cells.
    public var count: Int { summaries.count }

    /// Bytes held (slots and summaries), for the benchmarks' memory accounting.
    public var bytes: Int { slots.count * MemoryLayout<Int32>.stride + summaries.count * MemoryLayout<CellSummary>.stride }

    /// The summary of grid cell `cell`, or nil when it holds no station.
    @inline(__always)
    func summary(ofCell cell: Int) -> CellSummary? {
        let slot = slots[cell]
        return slot < 0 ? nil : summaries[Int(slot)]
    }
}
