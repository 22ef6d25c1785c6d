import Testing
@testable import IsobarCore

/// A snapshot keeps its records in grid order (cell by cell, input order within a cell) so a
/// viewport's stations lie together in memory; these check the layout itself. That every answer
/// is the same as before is what `ClustererTests` (brute force), the Python reference's exact
/// order and `FilterEngineTests` check.
@Suite struct SnapshotLayoutTests {
    static func snapshot(_ stations: [Station]) -> StationSnapshot {
        StationSnapshot(end: SnapshotEnd(day: .today, snapshot: "t", count: stations.count, source: .feed, fetchedAt: 0),
                        stations: stations, interner: KeyInterner())
    }

    @Test(arguments: [0, 1, 2, 7, 1_000])
    func permuteMovesEachRecordWhereTheOrderSays(count: Int) {
        var random = TestSupport.Random(seed: UInt64(count) &+ 3)
        let stations = (0..<count).map { Station(id: "s\($0)", name: "Station \($0) with a long name", coordinate: Coordinate(latitude: 0, longitude: 0)) }
        var order = (0..<count).map { Int32($0) }
        for i in order.indices.reversed() where i > 0 { order.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        var permuted = stations
        StationSnapshot.permute(&permuted, by: order)
        #expect(permuted == order.map { stations[Int($0)] })
    }

    @Test func recordsAreInGridOrderAndInputOrderWithinACell() throws {
        let world = try TestSupport.world()
        let dense = DenseStations.make(from: world, count: 20_000, seed: 9)
        // Three stations too: an odd count leaves one fingerprint outside the pairs.
        for stations in [world, dense, Array(world.prefix(3))] {
            let snapshot = Self.snapshot(stations)
            let inputIndex = Dictionary(stations.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(snapshot.stations.count == inputIndex.count)
            #expect(Set(snapshot.stations.map(\.id)) == Set(inputIndex.keys))
            let grid = snapshot.grid
            var previous: (cell: Int, input: Int)?
            var outOfOrder = 0
            for (position, station) in snapshot.stations.enumerated() {
                let cell = SpatialGrid.cell(station.coordinate.latitude, station.coordinate.longitude, grid.cellsPerDegree, grid.rows, grid.columns)
                let input = inputIndex[station.id] ?? -1
                if let previous, (cell, input) < previous { outOfOrder += 1 }
                previous = (cell, input)
                // Lookups by id, keys and fingerprints follow the records.
                if snapshot.position(of: station.id) != position || snapshot.fingerprints[position] != station.fingerprint { outOfOrder += 1 }
            }
            #expect(outOfOrder == 0)
            // The grid over the laid-out records walks them in place.
            #expect(grid.order == (0..<Int32(snapshot.stations.count)).map { $0 })
            // It is the grid a fresh sort of them builds (the snapshot reuses its layout's sort).
            let fresh = SpatialGrid(coordinates: snapshot.stations.map(\.coordinate))
            #expect(grid.cellsPerDegree == fresh.cellsPerDegree && grid.cellStart == fresh.cellStart && grid.order == fresh.order)
            #expect(grid.latitudes == fresh.latitudes && grid.longitudes == fresh.longitudes)
        }
    }
}
