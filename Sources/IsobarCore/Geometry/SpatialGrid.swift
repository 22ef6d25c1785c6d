/// A uniform latitude/longitude grid over a fixed set of points, answering "which points are in
/// this region" in O(cells touched + points reported) instead of a scan of every point.
///
/// Built once per snapshot with a counting sort (O(n)), stored as flat arrays (cell starts,
/// point indices, and the coordinates in cell order) so a query walks contiguous memory.
/// A grid was chosen over a k-d tree or R-tree because the points are static per snapshot,
/// the queries are axis-aligned boxes in degrees, and the wrap at ±180 maps to column ranges.
public struct SpatialGrid: Sendable {
    public let cellsPerDegree: Int
    let rows: Int
    let columns: Int
    /// cellStart[c]..<cellStart[c+1] are the positions in `order` of the points in cell c.
    let cellStart: [Int32]
    /// Point indices sorted by cell.
    let order: [Int32]
    let latitudes: [Double]
    let longitudes: [Double]
    /// Whether `order` is the identity (the points were given in cell order,
    /// ``init(cellOrdered:cellStart:cellsPerDegree:)``): then every walk of the grid, which goes
    /// cell by cell, yields the indices ascending.
    public let isCellOrdered: Bool

    public var count: Int { order.count }

    /// - Parameter cellsPerDegree: resolution; by default about 16 points per cell on average
    ///   for large sets (1° for up to ~1M points on 64,800 cells, finer above).
    public init<C: RandomAccessCollection>(coordinates: C, cellsPerDegree: Int? = nil) where C.Element == Coordinate, C.Index == Int {
        let resolution = Self.resolution(cellsPerDegree, count: coordinates.count)
        self.cellsPerDegree = resolution
        rows = 180 * resolution
        columns = 360 * resolution
        (cellStart, order) = Self.sortByCell(coordinates, resolution: resolution)
        isCellOrdered = false
        latitudes = order.map { coordinates[coordinates.startIndex + Int($0)].latitude }
        longitudes = order.map { coordinates[coordinates.startIndex + Int($0)].longitude }
    }

    /// The point indices a grid over `coordinates` walks, cell by cell and in index order within a
    /// cell (its `order`), and each cell's start in that order, without building the grid: how a
    /// snapshot lays its records out, and what ``init(cellOrdered:cellStart:cellsPerDegree:)`` takes
    /// once they are.
    public static func cellSort<C: RandomAccessCollection>(of coordinates: C, cellsPerDegree: Int? = nil) -> (cellStart: [Int32], order: [Int32])
    where C.Element == Coordinate, C.Index == Int {
        sortByCell(coordinates, resolution: resolution(cellsPerDegree, count: coordinates.count))
    }

    /// The grid over points already in cell order (rearranged by the `order` of ``cellSort(of:cellsPerDegree:)``,
    /// whose `cellStart` this takes): the same grid as `init(coordinates:)` over them, whose stable
    /// sort would find every point already in place, without sorting them a second time.
    public init<C: RandomAccessCollection>(cellOrdered coordinates: C, cellStart: [Int32], cellsPerDegree: Int? = nil)
    where C.Element == Coordinate, C.Index == Int {
        let resolution = Self.resolution(cellsPerDegree, count: coordinates.count)
        self.cellsPerDegree = resolution
        rows = 180 * resolution
        columns = 360 * resolution
        self.cellStart = cellStart
        order = (0..<Int32(coordinates.count)).map { $0 }
        isCellOrdered = true
        latitudes = coordinates.map { $0.latitude }
        longitudes = coordinates.map { $0.longitude }
    }

    private static func resolution(_ cellsPerDegree: Int?, count: Int) -> Int {
        cellsPerDegree ?? (count > 1_500_000 ? 2 : 1)
    }

    /// A stable counting sort of the points by cell: each cell's start in `order`, and the order.
    private static func sortByCell<C: RandomAccessCollection>(_ coordinates: C, resolution: Int) -> (cellStart: [Int32], order: [Int32])
    where C.Element == Coordinate, C.Index == Int {
        let rows = 180 * resolution, columns = 360 * resolution
        let cellCount = rows * columns
        var counts = [Int32](repeating: 0, count: cellCount + 1)
        var cells = [Int32](repeating: 0, count: coordinates.count)
        for (i, point) in coordinates.enumerated() {
            let cell = Self.cell(point.latitude, point.longitude, resolution, rows, columns)
            cells[i] = Int32(cell)
            counts[cell + 1] += 1
        }
        for c in 0..<cellCount { counts[c + 1] += counts[c] }
        var next = counts
        var order = [Int32](repeating: 0, count: coordinates.count)
        for i in 0..<coordinates.count {
            let cell = Int(cells[i])
            order[Int(next[cell])] = Int32(i)
            next[cell] += 1
        }
        return (counts, order)
    }

    @inline(__always) static func cell(_ latitude: Double, _ longitude: Double, _ resolution: Int, _ rows: Int, _ columns: Int) -> Int {
        let row = min(rows - 1, max(0, Int((latitude + 90) * Double(resolution))))
        let column = min(columns - 1, max(0, Int((longitude + 180) * Double(resolution))))
        return row * columns + column
    }

    @inline(__always) private func row(_ latitude: Double) -> Int {
        min(rows - 1, max(0, Int((latitude + 90) * Double(cellsPerDegree))))
    }

    @inline(__always) private func column(_ longitude: Double) -> Int {
        min(columns - 1, max(0, Int((longitude + 180) * Double(cellsPerDegree))))
    }

    /// The grid rows that `region`'s latitudes touch.
    func rowRange(in region: Region) -> ClosedRange<Int> {
        row(region.minLatitude)...row(region.maxLatitude)
    }

    /// The grid columns that `region`'s longitudes touch: one range, or two that share no column
    /// (two longitude ranges can share a boundary cell; it is listed once).
    func columnRanges(in region: Region) -> [ClosedRange<Int>] {
        let (first, second) = columnSpans(in: region)
        return second.map { [first, $0] } ?? [first]
    }

    /// ``columnRanges(in:)`` without an array (the per-pan query's): the first range, and the second
    /// when there are two, ascending.
    func columnSpans(in region: Region) -> (first: ClosedRange<Int>, second: ClosedRange<Int>?) {
        if region.allLongitudes { return (0...(columns - 1), nil) }
        var first = column(region.longitudes.lowerBound)...column(region.longitudes.upperBound)
        guard let wrapped = region.wrappedLongitudes else { return (first, nil) }
        var second = column(wrapped.lowerBound)...column(wrapped.upperBound)
        if second.lowerBound < first.lowerBound { swap(&first, &second) }
        if second.lowerBound <= first.upperBound { return (first.lowerBound...max(first.upperBound, second.upperBound), nil) }
        return (first, second)
    }

    /// Positions in `order` (and in `latitudes`/`longitudes`) of the points in grid cell `cell`.
    @inline(__always) func positions(ofCell cell: Int) -> Range<Int> {
        Int(cellStart[cell])..<Int(cellStart[cell + 1])
    }

    /// Calls `body` with the index of every point inside `region`, each exactly once.
    public func forEach(in region: Region, _ body: (Int32) -> Void) {
        _ = visit(in: region) { body($0); return true }
    }

    /// The indices of the points inside `region` (in `forEach` order), or nil as soon as there are
    /// more than `limit`: one pass answers both "how many?" and "which?" for a view that needs no
    /// clustering, and gives up after `limit + 1` points for one that does.
    ///
    /// The filter's per-pan query, so its loop is written out: the region's bounds in locals (its
    /// longitudes and their wrapped part), the arrays read through buffer pointers, and a cell range that
    /// lies wholly inside the region's latitudes skips that test. The same points in the same
    /// order as `visit`: strictly ascending when ``isCellOrdered`` (then `order` is not read).
    public func indices(in region: Region, limit: Int) -> [Int32]? {
        let minLatitude = region.minLatitude, maxLatitude = region.maxLatitude
        let all = region.allLongitudes
        // A point is inside when its longitude is in `longitudes` or in the wrapped part, if any
        // (an empty interval otherwise).
        let west0 = region.longitudes.lowerBound, east0 = region.longitudes.upperBound
        let west1 = region.wrappedLongitudes?.lowerBound ?? 0, east1 = region.wrappedLongitudes?.upperBound ?? -1
        let (first, second) = columnSpans(in: region)
        let spans = second == nil ? 1 : 2
        let rows = rowRange(in: region)
        let resolution = Double(cellsPerDegree)
        let cellOrdered = isCellOrdered
        var complete = true
        let found = cellStart.withUnsafeBufferPointer { cellStart in
            latitudes.withUnsafeBufferPointer { latitudes in
                longitudes.withUnsafeBufferPointer { longitudes in
                    order.withUnsafeBufferPointer { order -> [Int32] in
                        // Every point of the cells walked: at most what is found. The result is
                        // allocated once at its size and written in place, no append per point.
                        var candidates = 0
                        for r in rows {
                            let rowBase = r * columns
                            for span in 0..<spans {
                                let range = span == 0 ? first : second ?? first
                                candidates += Int(cellStart[rowBase + range.upperBound + 1]) - Int(cellStart[rowBase + range.lowerBound])
                            }
                        }
                        let capacity = max(0, min(limit, candidates))
                        // One slot more than can be kept: each candidate is written at `n` before the
                        // test decides whether it counts (below).
                        return [Int32](unsafeUninitializedCapacity: capacity + 1) { found, count in
                            var n = 0
                            defer { count = n }
                            for r in rows {
                                let rowBase = r * columns
                                // The row's latitudes [r / res - 90, (r + 1) / res - 90] inside the region's, with a
                                // margin far above the rounding of a point's row (so no point is let in that the test
                                // would keep out).
                                let rowInside = Double(r) / resolution - 90 - 1e-9 >= minLatitude
                                    && Double(r + 1) / resolution - 90 + 1e-9 <= maxLatitude
                                for span in 0..<spans {
                                    let range = span == 0 ? first : second ?? first
                                    let start = Int(cellStart[rowBase + range.lowerBound])
                                    let end = Int(cellStart[rowBase + range.upperBound + 1])
                                    // Without a branch on the test: a view's edge cuts its cells, so
                                    // whether the next point is inside is a coin toss the branch
                                    // predictor lost (`perf`: most of this query's samples sat on its
                                    // compares). Both coordinates are read and tested, as 0 or 1, for
                                    // every candidate (a row wholly inside, or every longitude, passes
                                    // its test whatever it gives); every candidate is written at `n`,
                                    // and `n` moves past it only when it is inside. (A test skipped when
                                    // the first failed, the compiler branched on that one again.)
                                    let latitudeFree = rowInside ? 1 : 0, longitudeFree = all ? 1 : 0
                                    for k in start..<end {
                                        let latitude = latitudes[k], longitude = longitudes[k]
                                        let inLatitude = latitudeFree | ((latitude >= minLatitude ? 1 : 0) & (latitude <= maxLatitude ? 1 : 0))
                                        let inLongitude = longitudeFree | ((longitude >= west0 ? 1 : 0) & (longitude <= east0 ? 1 : 0))
                                            | ((longitude >= west1 ? 1 : 0) & (longitude <= east1 ? 1 : 0))
                                        found[n] = cellOrdered ? Int32(k) : order[k]
                                        n += inLatitude & inLongitude
                                        // Only past `limit` (below it, `capacity` is every candidate).
                                        guard n <= capacity else { n = capacity; complete = false; return }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return complete ? found : nil
    }

    /// Calls `body` with the index of every point inside `region` until it returns false; returns
    /// whether every point was visited.
    private func visit(in region: Region, _ body: (Int32) -> Bool) -> Bool {
        let columnRanges = columnRanges(in: region)
        for r in rowRange(in: region) {
            let rowBase = r * columns
            for columnRange in columnRanges {
                let start = Int(cellStart[rowBase + columnRange.lowerBound])
                let end = Int(cellStart[rowBase + columnRange.upperBound + 1])
                // Cells of one row in a column range are contiguous in `order`.
                for k in start..<end where region.contains(latitude: latitudes[k], longitude: longitudes[k]) {
                    if !body(order[k]) { return false }
                }
            }
        }
        return true
    }

    /// The indices of every point inside `region`.
    public func indices(in region: Region) -> [Int32] {
        var found: [Int32] = []
        forEach(in: region) { found.append($0) }
        return found
    }
}
