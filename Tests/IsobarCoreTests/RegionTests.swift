import Testing
@testable import IsobarCore

/// The contract's visibility rule written independently (modular longitude distance), used as
/// the brute-force reference for the index and the filter.
func referenceVisible(_ c: Coordinate, center: Coordinate, dlat: Double, dlon: Double) -> Bool {
    let minLat = max(-90, center.latitude - dlat / 2)
    let maxLat = min(90, center.latitude + dlat / 2)
    guard c.latitude >= minLat && c.latitude <= maxLat else { return false }
    if dlon >= 360 { return true }
    var delta = (c.longitude - center.longitude).truncatingRemainder(dividingBy: 360)
    if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
    return abs(delta) <= dlon / 2
}

@Suite struct RegionTests {
    func region(_ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double) throws -> Region {
        try Region(center: Coordinate(latitude: lat, longitude: lon), latitudeDelta: dlat, longitudeDelta: dlon)
    }

    @Test func wrapsAtTheAntimeridian() throws {
        let r = try region(0, 179, 10, 4)
        #expect(r.contains(Coordinate(latitude: 0, longitude: -179)))
        #expect(r.contains(Coordinate(latitude: 0, longitude: 180)))
        #expect(r.contains(Coordinate(latitude: 0, longitude: -180)))
        #expect(r.contains(Coordinate(latitude: 0, longitude: -179.0)))
        #expect(!r.contains(Coordinate(latitude: 0, longitude: -176.9)))
        #expect(!r.contains(Coordinate(latitude: 0, longitude: 176.9)))
        let west = try region(0, -179, 10, 4)
        #expect(west.contains(Coordinate(latitude: 0, longitude: 179)))
        #expect(!west.contains(Coordinate(latitude: 0, longitude: 176)))
    }

    @Test func edgesAreInclusiveAndPolesClamp() throws {
        let r = try region(85, 0, 20, 10)
        #expect(r.maxLatitude == 90 && r.minLatitude == 75)
        #expect(r.contains(Coordinate(latitude: 90, longitude: 5)))
        #expect(r.contains(Coordinate(latitude: 75, longitude: -5)))
        #expect(!r.contains(Coordinate(latitude: 74.999, longitude: 0)))
        let south = try region(-90, 0, 2, 1)
        #expect(south.contains(Coordinate(latitude: -90, longitude: 0)))
    }

    @Test func wideSpansSeeEveryLongitude() throws {
        #expect(try region(10, 50, 20, 360).allLongitudes)
        #expect(try region(10, 179, 20, 359.9).allLongitudes == false)
        #expect(try region(10, 179, 20, 359.9).contains(Coordinate(latitude: 10, longitude: 0)))
        #expect(try region(10, 179, 20, 1000).contains(Coordinate(latitude: 10, longitude: -1)))
    }

    @Test(arguments: [(0.0, 10.0, "latitudeDelta 0.0 must be greater than 0"), (-5, 10, "latitudeDelta -5.0 must be greater than 0"),
                      (181, 10, "latitudeDelta 181.0 is over 180"), (10, 0, "longitudeDelta 0.0 must be greater than 0")])
    func rejectsBadSpans(_ dlat: Double, _ dlon: Double, _ message: String) {
        #expect(throws: MessageError(message, code: .outOfRange)) { try region(0, 0, dlat, dlon) }
    }

    @Test func parsesTheViewportFlag() throws {
        let r = try Region(parsing: "40.924,-108.0955,25,20")
        #expect(r.center == Coordinate(latitude: 40.924, longitude: -108.0955))
        #expect(throws: MessageError.self) { try Region(parsing: "1,2,3") }
    }

    @Test func indexAgreesWithBruteForceOnTheWorld() throws {
        let world = try TestSupport.world()
        #expect(world.count == 5_634)
        let grid = SpatialGrid(coordinates: world.map(\.coordinate))
        var random = TestSupport.Random(seed: 42)
        var nonEmpty = 0
        for k in 0..<5_000 {
            // Every fourth viewport hugs the antimeridian, every fourth a pole.
            let lat = k % 4 == 1 ? random.uniform(70...90) * (k % 8 == 1 ? 1 : -1) : random.uniform(-90...90)
            let lon = k % 4 == 2 ? random.uniform(170...180) * (k % 8 == 2 ? 1 : -1) : random.uniform(-180...180)
            let dlat = k % 3 == 0 ? random.uniform(0.01...5) : random.uniform(0.01...180)
            let dlon = k % 5 == 0 ? random.uniform(300...400) : random.uniform(0.01...60)
            let center = Coordinate(latitude: lat, longitude: lon)
            let region = try Region(center: center, latitudeDelta: dlat, longitudeDelta: dlon)
            let expected = Set(world.indices.filter { referenceVisible(world[$0].coordinate, center: center, dlat: dlat, dlon: dlon) })
            let found = grid.indices(in: region).map(Int.init)
            #expect(found.count == Set(found).count, "duplicates for \(region)")
            #expect(Set(found) == expected, "viewport \(lat),\(lon),\(dlat),\(dlon)")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty > 2_000)
    }

    /// The longitudes as one interval and the wrapped part: a region crossing ±180 either way has
    /// the part up to 180 and the part from -180; one that does not has no wrapped part; one that
    /// sees every longitude has -180...180 and none. `longitudeRanges` lists them in that order.
    @Test func longitudesAndTheirWrappedPart() throws {
        let east = try region(0, 179, 10, 4)
        #expect(east.longitudes == 177...180)
        #expect(east.wrappedLongitudes == -180...(-179))
        #expect(east.longitudeRanges == [177...180, -180...(-179)])
        let west = try region(0, -179, 10, 4)
        #expect(west.longitudes == 179...180)
        #expect(west.wrappedLongitudes == -180...(-177))
        let inside = try region(0, 10, 10, 4)
        #expect(inside.longitudes == 8...12)
        #expect(inside.wrappedLongitudes == nil)
        #expect(inside.longitudeRanges == [8...12])
        let all = try region(0, 179, 10, 360)
        #expect(all.allLongitudes && all.longitudes == -180...180 && all.wrappedLongitudes == nil && all.longitudeRanges.isEmpty)
        let nearlyAll = try region(10, 179, 20, 359.9)
        #expect(!nearlyAll.allLongitudes && nearlyAll.wrappedLongitudes != nil)
    }
}
