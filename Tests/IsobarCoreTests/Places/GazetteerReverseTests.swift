import Foundation
import Testing
@testable import IsobarCore

/// Reverse geocoding against brute force: every place's exact haversine, ties to the smaller
/// geonameid. 10,000 seeded points over a seeded sixteenth of the real cities500 data (a scan of all
/// 234,908 places per point is minutes in a debug build), plus 300 points over the whole of it.
@Suite struct GazetteerReverseTests {
    /// The exhaustive answer: a dot-product pass over every row keeps those within a hair of the
    /// best (as for stations), then the exact haversine and the id rule decide among them.
    static func bruteForce(_ point: Coordinate, _ g: Gazetteer, vectors: [(Double, Double, Double)]) -> (row: Int, h: Double) {
        let candidates = NearestIndexTests.candidates(point, vectors: vectors)
        var winner = (row: -1, h: Double.infinity)
        for i in candidates {
            let h = GreatCircle.haversine(point, Coordinate(latitude: g.latitudes[i], longitude: g.longitudes[i]))
            if h < winner.h || (h == winner.h && g.ids[i] < g.ids[winner.row]) { winner = (i, h) }
        }
        return winner
    }

    static func vectors(_ g: Gazetteer) -> [(Double, Double, Double)] {
        (0..<g.count).map { GreatCircle.vector(latitude: g.latitudes[$0], longitude: g.longitudes[$0]) }
    }

    /// Uniform points on the sphere (mostly ocean), the poles, the 180° meridian from both sides,
    /// points exactly on places and a few kilometres off them.
    static func points(_ count: Int, _ g: Gazetteer, seed: UInt64) -> [Coordinate] {
        var random = TestSupport.Random(seed: seed)
        var points: [Coordinate] = []
        while points.count < count {
            let longitude = random.uniform(-180...180)
            let place = Int(random.next() % UInt64(g.count))
            switch points.count % 10 {
            case 0: points.append(Coordinate(latitude: 90, longitude: longitude))
            case 1: points.append(Coordinate(latitude: -90, longitude: longitude))
            case 2: points.append(Coordinate(latitude: random.uniform(-90...(-60)), longitude: longitude))
            case 3: points.append(Coordinate(latitude: random.uniform(60...90), longitude: longitude))
            case 4: points.append(Coordinate(latitude: random.uniform(-60...60), longitude: random.next() % 2 == 0 ? 180 : -180))
            case 5: points.append(Coordinate(latitude: random.uniform(-60...60), longitude: random.uniform(179.9...180) * (random.next() % 2 == 0 ? 1 : -1)))
            case 6: points.append(Coordinate(latitude: g.latitudes[place], longitude: g.longitudes[place]))
            case 7:
                points.append(Coordinate(latitude: min(90, max(-90, g.latitudes[place] + random.uniform(-0.05...0.05))),
                                         longitude: min(180, max(-180, g.longitudes[place] + random.uniform(-0.05...0.05)))))
            default:
                // Uniform on the sphere: latitude from asin of a uniform z.
                points.append(Coordinate(latitude: asin(random.uniform(-1...1)) * 180 / .pi, longitude: longitude))
            }
        }
        return points
    }

    /// Every sixteenth row of the default data, chosen by a seeded hash (place ids kept).
    static func subset(seed: UInt64) throws -> Gazetteer {
        let bytes = try #require(DefaultGazetteer.bytes)
        var random = TestSupport.Random(seed: seed)
        var text: [UInt8] = []
        var lineStart = 0
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            if random.next() % 16 == 0 {
                text.append(contentsOf: bytes[lineStart...i])
            }
            lineStart = i + 1
        }
        return try text.withUnsafeBytes { buffer in try Gazetteer(dump: buffer, file: "subset") }
    }

    func check(_ g: Gazetteer, _ points: [Coordinate]) {
        let vectors = Self.vectors(g)
        var mismatches = 0
        for point in points {
            let expected = Self.bruteForce(point, g, vectors: vectors)
            let found = g.nearestRow(to: point)
            if found?.row != expected.row || found?.haversine != expected.h {
                mismatches += 1
                if mismatches <= 5 { Issue.record("\(point): found \(String(describing: found)), brute force \(expected)") }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func tenThousandPointsOverASubsetMatchBruteForce() throws {
        let g = try Self.subset(seed: 28)
        #expect(g.count > 14_000)
        check(g, Self.points(10_000, g, seed: 2801))
    }

    @Test func pointsOverTheWholeDefaultDataMatchBruteForce() throws {
        let g = try DefaultGazetteer.gazetteer()
        #expect(g.count == 234_908)
        check(g, Self.points(300, g, seed: 2802))
    }

    @Test func staraZagora() throws {
        let g = try DefaultGazetteer.gazetteer()
        let nearby = try #require(g.reverse(Coordinate(latitude: 42.432356, longitude: 25.637389)))
        #expect(nearby.place.id == 726848)
        #expect(nearby.place.name == "Stara Zagora")
        #expect(nearby.place.country == "Bulgaria")
        #expect(nearby.place.countryCode == "BG")
        #expect(nearby.place.timeZone == "Europe/Sofia")
        #expect(nearby.distanceKm < 2)
    }

    @Test func radiusSaysNoPlaceNearby() throws {
        let g = try DefaultGazetteer.gazetteer()
        let pacific = Coordinate(latitude: -30, longitude: -130)
        #expect(g.reverse(pacific) == nil)
        let far = try #require(g.reverse(pacific, radiusKm: Gazetteer.maxRadiusKm))
        #expect(far.distanceKm > 100)
        // A place's own coordinate: distance 0, bearing 0, inside any radius.
        let seoul = try #require(g.place(id: 1835848))
        let on = try #require(g.reverse(seoul.coordinate, radiusKm: 0.001))
        #expect(on.place.id == 1835848)
        #expect(on.distanceKm == 0)
        #expect(on.bearing == 0)
    }
}
