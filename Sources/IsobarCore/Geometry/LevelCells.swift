#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cells of one clustering level that a region touches, numbered densely (row-major over the
/// level rows and the one or two level-column intervals the region's longitudes cover), so a
/// request accumulates its clusters in arrays indexed by cell rather than in a dictionary.
///
/// A level-L cell is 2^L degrees on a side on a grid anchored at (-90°, -180°): a station at
/// (lat, lon) is in row Int((lat + 90) / 2^L), column Int((lon + 180) / 2^L). Both are monotone
/// in the coordinate, so every station inside the region falls in the rows and columns of the
/// region's own bounds. The number of cells is about (limit's square root + 2)², since the level
/// is chosen so the region spans about the square root of the limit on its longer side.
struct LevelCells {
    let level: Int
    /// Cell side in degrees (2^level).
    let size: Double
    let firstRow: Int
    let rowCount: Int
    /// The column intervals, sorted and disjoint; `secondWidth` is 0 when there is one.
    private let firstColumn: Int
    private let firstWidth: Int
    private let secondColumn: Int
    private let secondWidth: Int

    init(region: Region, level: Int) {
        self.level = level
        let size = pow(2.0, Double(level))
        self.size = size
        firstRow = Int((region.minLatitude + 90) / size)
        rowCount = Int((region.maxLatitude + 90) / size) - firstRow + 1
        let ranges = region.allLongitudes ? [-180.0...180.0] : region.longitudeRanges
        var intervals = ranges
            .map { Int(($0.lowerBound + 180) / size)...Int(($0.upperBound + 180) / size) }
            .sorted { $0.lowerBound < $1.lowerBound }
        // Two longitude ranges can meet in one cell (at the antimeridian when cells are 512°).
        if intervals.count == 2, intervals[1].lowerBound <= intervals[0].upperBound {
            intervals = [intervals[0].lowerBound...max(intervals[0].upperBound, intervals[1].upperBound)]
        }
        let first = intervals.first ?? 0...0
        firstColumn = first.lowerBound
        firstWidth = first.count
        secondColumn = intervals.count == 2 ? intervals[1].lowerBound : 0
        secondWidth = intervals.count == 2 ? intervals[1].count : 0
    }

    var columnCount: Int { firstWidth + secondWidth }
    var count: Int { rowCount * columnCount }

    @inline(__always) func row(_ latitude: Double) -> Int { Int((latitude + 90) / size) }
    @inline(__always) func column(_ longitude: Double) -> Int { Int((longitude + 180) / size) }

    /// The dense number of the cell at (`row`, `column`). Clamped into range so a coordinate
    /// outside the region can never index out of bounds; inside the region it is exact.
    @inline(__always) func index(row: Int, column: Int) -> Int {
        let r = min(max(row - firstRow, 0), rowCount - 1)
        let c: Int
        if secondWidth == 0 || column < secondColumn {
            c = min(max(column - firstColumn, 0), firstWidth - 1)
        } else {
            c = firstWidth + min(column - secondColumn, secondWidth - 1)
        }
        return r * columnCount + c
    }

    /// The `Cluster` key of the cell numbered `index`.
    func key(ofIndex index: Int) -> UInt64 {
        let c = index % columnCount
        let column = c < firstWidth ? firstColumn + c : secondColumn + c - firstWidth
        return Cluster.key(level: level, row: firstRow + index / columnCount, column: column)
    }
}
