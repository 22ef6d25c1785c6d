#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers "which station is nearest to this point" exactly (great-circle distance, ties to the
/// smaller id) over a snapshot's ``SpatialGrid``, visiting a few cells instead of every station.
///
/// Each non-empty grid cell gets a bounding cap: a centre (the cell's middle) and the largest
/// angle from it to any of the cell's stations, measured on the stations themselves. By the
/// triangle inequality no station of a cell is closer to the point than `angle(point, centre) -
/// radius`, so a cell whose bound exceeds the best distance found can be skipped without error.
/// Rows are visited outwards from the point's row and the sweep stops once a row's latitude gap
/// alone (a lower bound on any distance to it) exceeds the best: nothing unvisited can be closer.
/// Longitudes need no care at the 180° meridian (columns wrap, and the haversine is periodic), nor
/// at the poles (caps are true spherical bounds, whatever a cell's shape in degrees).
public struct NearestIndex: Sendable {
    let grid: SpatialGrid
    /// Per cell: the cap's radius in radians, rounded up to a `Float` (NaN when the cell is empty).
    /// The centre is the cell's middle, computed when needed (`centre(ofCell:)`), so a cell costs
    /// 4 bytes here, not 32: at a million stations the grid has a million cells, mostly empty.
    private let capRadius: [Float]
    /// Slack, in radians, added to every bound so floating-point error can only make the search
    /// look at one cell too many, never skip one (1e-9 rad is 6 mm on the ground).
    static let slack = 1e-9

    public init(grid: SpatialGrid) {
        self.grid = grid
        let cells = grid.rows * grid.columns
        var radius = [Float](repeating: .nan, count: cells)
        for cell in 0..<cells {
            let positions = grid.positions(ofCell: cell)
            guard !positions.isEmpty else { continue }
            let centre = Self.centre(ofCell: cell, in: grid)
            var largest = 0.0
            for k in positions {
                let p = GreatCircle.vector(latitude: grid.latitudes[k], longitude: grid.longitudes[k])
                largest = max(largest, GreatCircle.angle(centre, p))
            }
            // Float rounds to nearest: step up once so the stored bound is never below the true one.
            radius[cell] = Float(largest + Self.slack).nextUp
        }
        capRadius = radius
    }

    /// The middle of `cell` as a unit vector (the same computation at build and at search time).
    @inline(__always)
    static func centre(ofCell cell: Int, in grid: SpatialGrid) -> (Double, Double, Double) {
        let size = 1 / Double(grid.cellsPerDegree)
        let row = cell / grid.columns, column = cell % grid.columns
        return GreatCircle.vector(latitude: (Double(row) + 0.5) * size - 90, longitude: (Double(column) + 0.5) * size - 180)
    }

    /// The result of a search: the station's index (as given to the grid), and its haversine term.
    public struct Hit: Sendable, Equatable {
        public var index: Int32
        public var haversine: Double
        /// The great-circle distance in kilometres.
        public var distanceKm: Double { GreatCircle.angle(haversine: haversine) * GreatCircle.earthRadiusKm }
    }

    /// The nearest point to `point`, or nil when there are none. `precedes(a, b)` breaks exact
    /// ties (the filter passes "a's id is smaller than b's in UTF-8 byte order").
    public func nearest(to point: Coordinate, precedes: (Int32, Int32) -> Bool) -> Hit? {
        guard grid.count > 0 else { return nil }
        return withoutActuallyEscaping(precedes) { search(point, $0) }
    }

    private func search(_ point: Coordinate, _ precedes: @escaping (Int32, Int32) -> Bool) -> Hit? {
        var search = Search(index: self, point: point, precedes: precedes)
        let rows = grid.rows, columns = grid.columns
        let resolution = Double(grid.cellsPerDegree)
        let pointRow = min(rows - 1, max(0, Int((point.latitude + 90) * resolution)))
        let pointColumn = min(columns - 1, max(0, Int((point.longitude + 180) * resolution)))
        // Seed: the point's own cell and widening squares around it until something is found, so
        // the row sweep below starts with a good bound and prunes nearly everything.
        var seeded = -1
        for ring in 0...4 {
            for row in max(0, pointRow - ring)...min(rows - 1, pointRow + ring) {
                for offset in -ring...ring where abs(row - pointRow) == ring || abs(offset) == ring {
                    search.visit(row * columns + Self.wrap(pointColumn + offset, columns))
                }
            }
            seeded = ring
            if search.best != nil { break }
        }
        // Sweep whole rows outwards; a row is skipped (and the sweep in that direction ends) once
        // its latitude gap alone is farther than the best.
        var up = pointRow + 1, down = pointRow
        var upOpen = true, downOpen = true
        while upOpen || downOpen {
            if downOpen {
                if down < 0 || search.rowGap(down, resolution) > search.bestAngle {
                    downOpen = false
                } else {
                    search.sweep(row: down, around: pointColumn, skippingWithin: abs(down - pointRow) <= seeded ? seeded : -1)
                    down -= 1
                }
            }
            if upOpen {
                if up >= rows || search.rowGap(up, resolution) > search.bestAngle {
                    upOpen = false
                } else {
                    search.sweep(row: up, around: pointColumn, skippingWithin: abs(up - pointRow) <= seeded ? seeded : -1)
                    up += 1
                }
            }
        }
        return search.best
    }

    @inline(__always) static func wrap(_ column: Int, _ columns: Int) -> Int {
        let c = column % columns
        return c < 0 ? c + columns : c
    }

    /// One query's state: the point and the best station so far.
    private struct Search {
        let index: NearestIndex
        let point: Coordinate
        let vector: (Double, Double, Double)
        let cosLatitude: Double
        let precedes: (Int32, Int32) -> Bool
        var best: Hit?
        /// The best distance as an angle plus the slack (infinity before any), and its cosine.
        var bestAngle = Double.infinity

        init(index: NearestIndex, point: Coordinate, precedes: @escaping (Int32, Int32) -> Bool) {
            self.index = index
            self.point = point
            self.precedes = precedes
            vector = GreatCircle.vector(latitude: point.latitude, longitude: point.longitude)
            cosLatitude = cos(GreatCircle.radians(point.latitude))
        }

        /// The smallest latitude difference, in radians, between the point and grid row `row`.
        func rowGap(_ row: Int, _ resolution: Double) -> Double {
            let south = Double(row) / resolution - 90, north = Double(row + 1) / resolution - 90
            // The last row also holds stations exactly at 90 (rows are clamped), and row bounds
            // are exact multiples of the cell size, so [south, north] covers every station in it.
            let gap = point.latitude < south ? south - point.latitude : (point.latitude > north ? point.latitude - north : 0)
            return max(0, GreatCircle.radians(gap) - NearestIndex.slack)
        }

        /// Visits every column of `row` from the point's column outwards, except the `within`
        /// columns on each side already seen by the seed.
        mutating func sweep(row: Int, around column: Int, skippingWithin within: Int) {
            let columns = index.grid.columns
            let base = row * columns
            let start = within >= 0 ? within + 1 : 0
            guard start <= columns / 2 else { return }
            let size = 360 / Double(columns)
            for offset in start...(columns / 2) {
                // Columns `offset` away hold no point nearer than their longitude gap allows: at
                // least (offset - 1) cells of longitude, and the nearest point on a half-meridian
                // Δλ away is asin(cos φ · sin Δλ) off (90° - |φ| beyond Δλ = 90°), growing with Δλ,
                // so once that exceeds the best no farther column can hold a nearer point.
                if offset >= 2 && bestAngle.isFinite {
                    let gap = Double(offset - 1) * size
                    let bound = gap >= 90 ? Double.pi / 2 - abs(GreatCircle.radians(point.latitude))
                        : asin(min(1, cosLatitude * sin(GreatCircle.radians(gap))))
                    if bound - NearestIndex.slack > bestAngle { break }
                }
                visit(base + NearestIndex.wrap(column + offset, columns))
                if offset != 0 && offset * 2 != columns {
                    visit(base + NearestIndex.wrap(column - offset, columns))
                }
            }
        }

        @inline(__always)
        mutating func visit(_ cell: Int) {
            let grid = index.grid
            let start = Int(grid.cellStart[cell]), end = Int(grid.cellStart[cell + 1])
            guard start < end else { return }
            if bestAngle.isFinite {
                let centre = NearestIndex.centre(ofCell: cell, in: grid)
                if GreatCircle.angle(vector, centre) - Double(index.capRadius[cell]) > bestAngle { return }
            }
            for k in start..<end {
                let h = GreatCircle.haversine(latitude1: point.latitude, longitude1: point.longitude, cosLatitude1: cosLatitude,
                                              latitude2: grid.latitudes[k], longitude2: grid.longitudes[k])
                let candidate = grid.order[k]
                if let current = best {
                    guard h < current.haversine || (h == current.haversine && precedes(candidate, current.index)) else { continue }
                }
                best = Hit(index: candidate, haversine: h)
                bestAngle = GreatCircle.angle(haversine: h) + NearestIndex.slack
            }
        }
    }
}
