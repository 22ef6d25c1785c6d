import Testing
@testable import IsobarCore

/// `SpatialGrid.indices(in:limit:)`, the filter's per-pan query with its loop written out, against
/// the plain walk (`indices(in:)`): the same points in the same order, nil exactly when there are
/// more than `limit`, including points on and next to the cell rows' edges.
@Suite struct GridLimitQueryTests {
    @Test func theLimitQueryIsThePlainWalkInTheSameOrder() throws {
        var random = TestSupport.Random(seed: 5)
        var points = try TestSupport.world().map(\.coordinate)
        // Points on whole degrees (a row's edge), a hair either side, and at the poles and the antimeridian.
        for _ in 0..<3_000 {
            let whole = Double(Int(random.uniform(-89...89)))
            let nudge = [0, 1e-12, -1e-12, 1e-7, -1e-7][Int(random.next() % 5)]
            points.append(Coordinate(latitude: whole + nudge, longitude: random.uniform(-180...180)))
        }
        points += [Coordinate(latitude: 90, longitude: 180), Coordinate(latitude: -90, longitude: -180), Coordinate(latitude: 0, longitude: 180)]
        let grid = SpatialGrid(coordinates: points)
        var compared = 0, overLimit = 0
        for k in 0..<4_000 {
            // Half the regions have edges on whole degrees, where the row test is skipped or not.
            let lat = k % 2 == 0 ? Double(Int(random.uniform(-85...85))) + 0.5 : random.uniform(-90...90)
            let dlat = k % 2 == 0 ? Double(1 + Int(random.next() % 6)) : random.uniform(0.01...40)
            let lon = k % 7 == 0 ? random.uniform(175...180) : random.uniform(-180...180)
            let dlon = k % 11 == 0 ? random.uniform(300...400) : random.uniform(0.01...50)
            let region = try Region(center: Coordinate(latitude: lat, longitude: lon), latitudeDelta: dlat, longitudeDelta: dlon)
            let all = grid.indices(in: region)
            let limit = k % 3 == 0 ? max(1, all.count - 1) : 1_000_000
            let limited = grid.indices(in: region, limit: limit)
            if all.count > limit {
                #expect(limited == nil, "region \(region)")
                overLimit += 1
            } else {
                #expect(limited == all, "region \(region)")
                compared += 1
            }
        }
        #expect(compared > 2_000 && overLimit > 500)
    }

    /// A limit met exactly (as many points inside as `limit`, often with more candidates after the
    /// last of them in its cells): every point, not nil; one fewer allowed: nil. The query writes
    /// each candidate before its test decides whether it counts, into one slot past the limit.
    @Test func aLimitMetExactlyGivesEveryPoint() throws {
        var random = TestSupport.Random(seed: 6)
        let world = try TestSupport.world().map(\.coordinate)
        let grid = SpatialGrid(coordinates: world)
        var compared = 0
        for _ in 0..<1_000 {
            // Centred on a station, so the region is never empty.
            let center = world[Int(random.next() % UInt64(world.count))]
            let region = try Region(center: center, latitudeDelta: random.uniform(0.2...20), longitudeDelta: random.uniform(0.2...30))
            let all = grid.indices(in: region)
            guard !all.isEmpty else { continue }
            #expect(grid.indices(in: region, limit: all.count) == all, "region \(region)")
            #expect(grid.indices(in: region, limit: all.count - 1) == nil, "region \(region)")
            compared += 1
        }
        #expect(compared > 900)
    }

    /// A grid over points already in cell order (a snapshot's): the limit query yields the plain
    /// walk's points strictly ascending, what lets the filter diff a pan by position unchecked
    /// (`VisibleItems.stationsAscending`), across the antimeridian and with every longitude too.
    @Test func aCellOrderedGridYieldsAscendingIndices() throws {
        var random = TestSupport.Random(seed: 8)
        let world = try TestSupport.world().map(\.coordinate)
        let (cellStart, order) = SpatialGrid.cellSort(of: world)
        let points = order.map { world[Int($0)] }
        let grid = SpatialGrid(cellOrdered: points, cellStart: cellStart)
        // The same points sorted by cell again: its stable sort leaves every one in place.
        let reference = SpatialGrid(coordinates: points)
        #expect(grid.isCellOrdered && !reference.isCellOrdered)
        var compared = 0, wrapped = 0
        for k in 0..<2_000 {
            let lon = k % 5 == 0 ? random.uniform(170...180) : random.uniform(-180...180)
            let dlon = k % 13 == 0 ? random.uniform(300...400) : random.uniform(0.01...40)
            let region = try Region(center: Coordinate(latitude: random.uniform(-90...90), longitude: lon),
                                    latitudeDelta: random.uniform(0.01...30), longitudeDelta: dlon)
            let all = reference.indices(in: region)
            let limit = k % 4 == 0 ? max(1, all.count - 1) : 1_000_000
            let found = grid.indices(in: region, limit: limit)
            guard all.count <= limit else {
                #expect(found == nil, "region \(region)")
                continue
            }
            let indices = try #require(found)
            #expect(indices == all, "region \(region)")
            #expect(zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 }, "region \(region)")
            compared += 1
            if region.longitudeRanges.count == 2 && !indices.isEmpty { wrapped += 1 }
        }
        #expect(compared > 1_000 && wrapped > 20)
    }
}
