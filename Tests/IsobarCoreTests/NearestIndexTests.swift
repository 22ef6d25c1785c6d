import Foundation
import Testing
@testable import IsobarCore

/// `NearestIndex` against brute force: every station's exact haversine, ties to the smaller id.
@Suite struct NearestIndexTests {
    /// The exhaustive answer: a cheap dot-product pass over every station keeps those within a
    /// hair of the best, then the exact haversine and the id rule decide among them.
    static func bruteForce(_ point: Coordinate, _ stations: [Station], vectors: [(Double, Double, Double)]) -> (id: String, h: Double)? {
        let candidates = candidates(point, vectors: vectors)
        var winner: (id: String, h: Double)?
        for i in candidates {
            let h = GreatCircle.haversine(point, stations[i].coordinate)
            if let current = winner, h > current.h || (h == current.h && !stations[i].id.utf8.lexicographicallyPrecedes(current.id.utf8)) { continue }
            winner = (stations[i].id, h)
        }
        return winner
    }

    /// The indices of the vectors within a hair (1e-9 in the dot product) of the largest dot
    /// product with `point`: a superset of the nearest points, for the exact decision to pick from.
    static func candidates(_ point: Coordinate, vectors: [(Double, Double, Double)]) -> [Int] {
        let p = GreatCircle.vector(latitude: point.latitude, longitude: point.longitude)
        var best = -Double.infinity
        var candidates: [Int] = []
        vectors.withUnsafeBufferPointer { all in
            for i in 0..<all.count {
                let v = all[i]
                let dot = p.0 * v.0 + p.1 * v.1 + p.2 * v.2
                if dot > best + 1e-9 {
                    best = dot
                    candidates.removeAll(keepingCapacity: true)
                    candidates.append(i)
                } else if dot >= best - 1e-9 {
                    best = max(best, dot)
                    candidates.append(i)
                }
            }
        }
        return candidates
    }

    static func index(_ stations: [Station]) -> (NearestIndex, (Int32, Int32) -> Bool) {
        let grid = SpatialGrid(coordinates: stations.map(\.coordinate))
        return (NearestIndex(grid: grid), { a, b in stations[Int(a)].id.utf8.lexicographicallyPrecedes(stations[Int(b)].id.utf8) })
    }

    /// Random points uniform on the sphere, plus the hard places: on and across the 180°
    /// meridian, both poles (at several longitudes), and exactly on stations.
    static func points(_ count: Int, stations: [Station], seed: UInt64) -> [Coordinate] {
        var random = TestSupport.Random(seed: seed)
        var points: [Coordinate] = []
        for k in 0..<40 {
            let longitude = random.uniform(-180...180)
            points.append(Coordinate(latitude: 90, longitude: longitude))
            points.append(Coordinate(latitude: -90, longitude: longitude))
            points.append(Coordinate(latitude: random.uniform(-89.99...(-89)), longitude: longitude))
            points.append(Coordinate(latitude: random.uniform(89...89.99), longitude: longitude))
            let latitude = random.uniform(-80...80)
            points.append(Coordinate(latitude: latitude, longitude: 180))
            points.append(Coordinate(latitude: latitude, longitude: -180))
            points.append(Coordinate(latitude: latitude, longitude: 179.999 + Double(k) * 1e-6))
            points.append(Coordinate(latitude: latitude, longitude: -179.9999 - Double(k) * 1e-7))
            points.append(stations[Int(random.next() % UInt64(stations.count))].coordinate)
        }
        // Near the stations that sit closest to the antimeridian, on the other side of it.
        for station in stations.filter({ abs($0.coordinate.longitude) > 179 }).prefix(60) {
            let lon = station.coordinate.longitude
            points.append(Coordinate(latitude: station.coordinate.latitude, longitude: lon > 0 ? -179.9 : 179.9))
        }
        while points.count < count {
            let z = random.uniform(-1...1)
            points.append(Coordinate(latitude: asinDegrees(z), longitude: random.uniform(-180...180)))
        }
        return points
    }

    static func asinDegrees(_ z: Double) -> Double { asin(z) * 180 / .pi }

    static func check(stations: [Station], points: [Coordinate]) -> Int {
        let (index, precedes) = index(stations)
        let vectors = stations.map { GreatCircle.vector(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude) }
        var wrong = 0
        for point in points {
            let expected = bruteForce(point, stations, vectors: vectors)
            let found = index.nearest(to: point, precedes: precedes)
            let foundID = found.map { stations[Int($0.index)].id }
            if foundID != expected?.id || found?.haversine != expected?.h {
                wrong += 1
                if wrong <= 5 { Issue.record("at \(point): found \(foundID ?? "nil") h=\(found?.haversine ?? -1), brute force \(expected?.id ?? "nil") h=\(expected?.h ?? -1)") }
            }
        }
        return wrong
    }

    @Test func worldStationsAgainstBruteForce() throws {
        let world = try TestSupport.world()
        #expect(world.count == 5_634)
        let points = Self.points(5_000, stations: world, seed: 7)
        #expect(points.count == 5_000)
        #expect(Self.check(stations: world, points: points) == 0)
    }

    @Test func millionStationsAgainstBruteForce() throws {
        let world = try TestSupport.world()
        let stations = DenseStations.make(from: world, count: 1_000_000, seed: 11)
        #expect(stations.count > 1_000_000)
        let points = Self.points(1_000, stations: stations, seed: 13)
        #expect(Self.check(stations: stations, points: points) == 0)
    }

    @Test func tiesGoToTheSmallerID() {
        let here = Coordinate(latitude: 10, longitude: 20)
        let stations = [Station(id: "b", name: "", coordinate: here), Station(id: "B", name: "", coordinate: here),
                        Station(id: "a2", name: "", coordinate: here), Station(id: "far", name: "", coordinate: Coordinate(latitude: 0, longitude: 0))]
        let (index, precedes) = Self.index(stations)
        let hit = index.nearest(to: here, precedes: precedes)
        #expect(hit.map { stations[Int($0.index)].id } == "B")
        #expect(hit?.distanceKm == 0)
    }

    @Test func acrossTheAntimeridianAndAtThePoles() {
        let stations = [Station(id: "east", name: "", coordinate: Coordinate(latitude: 0, longitude: 179.5)),
                        Station(id: "west", name: "", coordinate: Coordinate(latitude: 0, longitude: -178)),
                        Station(id: "pole", name: "", coordinate: Coordinate(latitude: 89.9, longitude: 0))]
        let (index, precedes) = Self.index(stations)
        let id = { (p: Coordinate) in index.nearest(to: p, precedes: precedes).map { stations[Int($0.index)].id } }
        #expect(id(Coordinate(latitude: 0, longitude: -179.9)) == "east")   // 0.4° across the line, not 1.9°
        #expect(id(Coordinate(latitude: 0, longitude: -178.9)) == "west")
        #expect(id(Coordinate(latitude: 90, longitude: 123)) == "pole")
        #expect(id(Coordinate(latitude: 89.95, longitude: 180)) == "pole")  // the other side of the pole
        let empty = Self.index([]).0
        #expect(empty.nearest(to: Coordinate(latitude: 0, longitude: 0), precedes: { _, _ in false }) == nil)
    }

    @Test func distanceAndBearing() {
        let bratislava = Coordinate(latitude: 48.1486, longitude: 17.1077)
        let kosice = Coordinate(latitude: 48.7164, longitude: 21.2611)
        // Reference values computed independently (Python's math, the same formulas, R = 6371.0088 km).
        #expect((GreatCircle.distanceKm(bratislava, kosice) * 1000).rounded() / 1000 == 312.824)
        #expect((GreatCircle.bearing(from: bratislava, to: kosice) * 10).rounded() / 10 == 76.8)
        #expect(GreatCircle.bearing(from: Coordinate(latitude: 0, longitude: 179), to: Coordinate(latitude: 0, longitude: -179)) == 90)
        #expect(GreatCircle.bearing(from: Coordinate(latitude: 0, longitude: -179), to: Coordinate(latitude: 0, longitude: 179)) == 270)
        #expect(GreatCircle.bearing(from: Coordinate(latitude: 90, longitude: 0), to: kosice) == 180)
        #expect(GreatCircle.bearing(from: Coordinate(latitude: -90, longitude: 0), to: kosice) == 0)
        // Across the pole a tiny negative angle plus 360 rounded to exactly 360: north is 0.
        #expect(GreatCircle.bearing(from: Coordinate(latitude: 89.95, longitude: 180), to: Coordinate(latitude: 89.9, longitude: 0)) == 0)
        // A quarter of the way round the world: π/2 × R.
        let quarter = GreatCircle.distanceKm(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 90, longitude: 0))
        #expect(abs(quarter - 6371.0088 * .pi / 2) < 1e-9)
    }
}
