@testable import IsobarCore

/// A dense, deterministic station set for the clustering tests, in the manner of isobar-bench's
/// generator: world stations copied and jittered by up to 1° (seeded, rounded to 1e-5° so some
/// land exactly on grid lines), with seeded weather and a few unknowns, plus stations placed on
/// purpose where the index has edges: the poles, ±180°, whole degrees, and piles at one point.
enum DenseStations {
    static func make(from world: [Station], count: Int, seed: UInt64) -> [Station] {
        var random = TestSupport.Random(seed: seed)
        var stations: [Station] = []
        stations.reserveCapacity(count + 400)
        for i in 0..<count {
            let base = world[i % world.count]
            let latitude = round5(min(90, max(-90, base.coordinate.latitude + random.uniform(-1...1))))
            var longitude = base.coordinate.longitude + random.uniform(-1...1)
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            stations.append(weathered("d\(i)", Coordinate(latitude: latitude, longitude: round5(longitude)), &random))
        }
        var special: [Coordinate] = []
        for k in 0..<40 {
            let along = random.uniform(-180...180)
            special.append(Coordinate(latitude: 90, longitude: round5(along)))
            special.append(Coordinate(latitude: -90, longitude: round5(along)))
            let up = random.uniform(-90...90)
            special.append(Coordinate(latitude: round5(up), longitude: 180))
            special.append(Coordinate(latitude: round5(up), longitude: -180))
            special.append(Coordinate(latitude: Double(Int(up)), longitude: Double(k * 9 - 180)))
            special.append(Coordinate(latitude: Double(Int(up)) + 0.5, longitude: Double(k * 9 - 180) + 0.5))
        }
        special += [Coordinate(latitude: 90, longitude: 180), Coordinate(latitude: -90, longitude: -180),
                    Coordinate(latitude: 90, longitude: -180), Coordinate(latitude: -90, longitude: 180)]
        for _ in 0..<5 { special += Array(repeating: Coordinate(latitude: 45.5, longitude: -100.25), count: 3) }
        for (k, coordinate) in special.enumerated() {
            stations.append(weathered("s\(k)", coordinate, &random))
        }
        return stations
    }

    private static func weathered(_ id: String, _ coordinate: Coordinate, _ random: inout TestSupport.Random) -> Station {
        let temperature = random.next() % 50 == 0 ? nil : round1(85 - abs(coordinate.latitude) * 0.9 + random.uniform(-12...12))
        let windSpeed = random.next() % 40 == 0 ? nil : round1(random.uniform(0...35))
        let windDirection = random.next() % 30 == 0 ? nil : Double(random.next() % 361)
        let precipitation = random.next() % 20 == 0 ? nil : Double(random.next() % 101)
        return Station(id: id, name: "", coordinate: coordinate, temperature: temperature, windSpeed: windSpeed,
                       windDirection: windDirection, precipitation: precipitation)
    }

    private static func round5(_ v: Double) -> Double { (v * 100_000).rounded() / 100_000 }
    private static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}
