import Foundation
import Testing
@testable import IsobarCore

/// `Clusterer.items` (cell summaries, edge scans) against a brute-force reference, over thousands
/// of seeded regions of every awkward kind, on the real world stations and on a dense set.
@Suite struct ClustererTests {
    static let limits = [1, 10, 500, 5_000]

    static func snapshot(_ stations: [Station]) -> StationSnapshot {
        StationSnapshot(end: SnapshotEnd(day: .today, snapshot: "t", count: stations.count, source: .feed, fetchedAt: 0),
                        stations: stations, interner: KeyInterner())
    }

    /// A seeded region of kind `k % 8`: anywhere, across the antimeridian, at a pole, the whole
    /// world, tiny around a station, huge, with edges on whole or half degrees, medium around a station.
    static func region(_ k: Int, _ random: inout TestSupport.Random, near stations: [Station]) -> Region {
        let station = stations[Int(random.next() % UInt64(stations.count))].coordinate
        func logUniform(_ low: Double, _ high: Double, _ random: inout TestSupport.Random) -> Double {
            low * pow(high / low, random.uniform(0...1))
        }
        let sign: Double = random.next() % 2 == 0 ? 1 : -1
        switch k % 8 {
        case 0:
            return Region(clampingCenter: Coordinate(latitude: random.uniform(-90...90), longitude: random.uniform(-180...180)),
                          latitudeDelta: logUniform(1e-3, 180, &random), longitudeDelta: logUniform(1e-3, 400, &random))
        case 1:
            return Region(clampingCenter: Coordinate(latitude: random.uniform(-70...70), longitude: sign * random.uniform(165...180)),
                          latitudeDelta: logUniform(0.1, 120, &random), longitudeDelta: logUniform(1, 359, &random))
        case 2:
            return Region(clampingCenter: Coordinate(latitude: sign * random.uniform(60...90), longitude: random.uniform(-180...180)),
                          latitudeDelta: random.uniform(1...180), longitudeDelta: logUniform(1, 400, &random))
        case 3:
            return Region(clampingCenter: Coordinate(latitude: random.uniform(-45...45), longitude: random.uniform(-180...180)),
                          latitudeDelta: random.uniform(90...180), longitudeDelta: random.uniform(360...500))
        case 4:
            return Region(clampingCenter: station, latitudeDelta: logUniform(1e-5, 1e-2, &random), longitudeDelta: logUniform(1e-5, 1e-2, &random))
        case 5:
            return Region(clampingCenter: Coordinate(latitude: random.uniform(-30...30), longitude: random.uniform(-180...180)),
                          latitudeDelta: random.uniform(100...180), longitudeDelta: random.uniform(180...359.9))
        case 6:
            let step: Double = random.next() % 2 == 0 ? 1 : 0.5
            return Region(clampingCenter: Coordinate(latitude: (station.latitude / step).rounded() * step,
                                                     longitude: (station.longitude / step).rounded() * step),
                          latitudeDelta: Double(2 + random.next() % 60) * step, longitudeDelta: Double(2 + random.next() % 100) * step)
        default:
            return Region(clampingCenter: station, latitudeDelta: logUniform(0.2, 40, &random), longitudeDelta: logUniform(0.2, 60, &random))
        }
    }

    /// Everything wrong with `items` against the reference (empty when they agree).
    static func problems(_ items: VisibleItems, _ reference: ClusterReference) -> [String] {
        var problems: [String] = []
        let shown = Set(items.stations)
        if shown.count != items.stations.count { problems.append("a station shown twice") }
        if shown != reference.shown {
            problems.append("shown: \(shown.subtracting(reference.shown).count) extra, \(reference.shown.subtracting(shown).count) missing")
        }
        var ids: Set<String> = []
        for cluster in items.clusters {
            guard ids.insert(cluster.id).inserted else { problems.append("\(cluster.id) twice"); continue }
            guard let bin = reference.clusters[cluster.id] else { problems.append("\(cluster.id) not expected"); continue }
            if let problem = ClusterReference.mismatch(cluster, bin) { problems.append("\(cluster.id): \(problem)") }
        }
        for id in reference.clusters.keys where !ids.contains(id) { problems.append("\(id) missing") }
        let total = items.stations.count + items.clusters.reduce(0) { $0 + $1.count }
        if total != reference.inView { problems.append("stations in annotations \(total) != \(reference.inView) in view") }
        return problems
    }

    /// Compares `count` regions; returns how many clustered and the first failures.
    static func compare(_ stations: [Station], regions count: Int, seed: UInt64) -> (clustered: Int, failures: [String]) {
        let snapshot = snapshot(stations)
        let coordinates = stations.map(\.coordinate)
        let inputIndex = Dictionary(stations.enumerated().map { ($1.id, Int32($0)) }, uniquingKeysWith: { first, _ in first })
        var random = TestSupport.Random(seed: seed)
        var failures: [String] = []
        var clustered = 0
        for k in 0..<count {
            let region = region(k, &random, near: stations)
            let limit = limits[Int(random.next() % UInt64(limits.count))]
            var items = Clusterer.items(in: region, of: snapshot, limit: limit)
            // The snapshot keeps its records in grid order; the reference counts in input order.
            items.stations = items.stations.map { inputIndex[snapshot.stations[Int($0)].id] ?? -1 }
            let reference = ClusterReference(stations: stations, coordinates: coordinates, region: region, limit: limit)
            if !reference.clusters.isEmpty { clustered += 1 }
            let problems = problems(items, reference)
            if !problems.isEmpty, failures.count < 5 {
                failures.append("region \(k) \(region.center) \(region.latitudeDelta)x\(region.longitudeDelta) limit \(limit): \(problems.prefix(4))")
            }
        }
        return (clustered, failures)
    }

    @Test func agreesWithBruteForceOnTheWorldStations() throws {
        let world = try TestSupport.world()
        let (clustered, failures) = Self.compare(world, regions: 2_000, seed: 11)
        #expect(failures.isEmpty, "\(failures)")
        #expect(clustered > 500)
    }

    @Test func agreesWithBruteForceOnADenseSet() throws {
        let stations = DenseStations.make(from: try TestSupport.world(), count: 100_000, seed: 5)
        let (clustered, failures) = Self.compare(stations, regions: 2_000, seed: 12)
        #expect(failures.isEmpty, "\(failures)")
        #expect(clustered > 800)
    }

    /// Panning changes which grid cells are summed whole and which station by station, and where
    /// longitudes unwrap; a cluster whose members did not change must keep its fingerprint, or
    /// the client would be sent an update for nothing.
    @Test func unchangedClustersKeepTheirFingerprintWhilePanning() throws {
        let stations = DenseStations.make(from: try TestSupport.world(), count: 100_000, seed: 6)
        let snapshot = Self.snapshot(stations)
        let coordinates = stations.map(\.coordinate)
        var random = TestSupport.Random(seed: 13)
        var previous: [String: (members: [Int], fingerprint: UInt64)] = [:]
        var compared = 0
        var changed: [String] = []
        for step in 0..<300 {
            // Walk across the antimeridian and through Europe at two zooms.
            let longitude = step < 150 ? 150 + Double(step) * 0.4 : -20 + Double(step - 150) * 0.3
            let center = Coordinate(latitude: 40 + random.uniform(-0.3...0.3), longitude: longitude)
            let region = Region(clampingCenter: center, latitudeDelta: step % 2 == 0 ? 30 : 30.5, longitudeDelta: 60)
            let items = Clusterer.items(in: region, of: snapshot, limit: 500)
            let reference = ClusterReference(stations: stations, coordinates: coordinates, region: region, limit: 500)
            var current: [String: (members: [Int], fingerprint: UInt64)] = [:]
            for cluster in items.clusters {
                guard let bin = reference.clusters[cluster.id] else { continue }
                let members = bin.members.sorted()
                current[cluster.id] = (members, cluster.fingerprint)
                if let before = previous[cluster.id], before.members == members {
                    compared += 1
                    if before.fingerprint != cluster.fingerprint, changed.count < 5 { changed.append("step \(step) \(cluster.id)") }
                }
            }
            previous = current
        }
        #expect(changed.isEmpty, "\(changed)")
        #expect(compared > 1_000)
    }

    @Test func clusterIdsStayValidAtTheFinestZoom() throws {
        // Three stations a few centimetres apart in the far east (large columns) and limit 1: the
        // level is clamped at 2^-15 degrees, so the row and column fit the key's 24 bits each.
        let stations = (0..<3).map { k in
            Station(id: "S\(k)", name: "", coordinate: Coordinate(latitude: 10, longitude: 179.9 + Double(k) * 1e-7), temperature: 50)
        }
        let snapshot = Self.snapshot(stations)
        let region = try Region(center: Coordinate(latitude: 10, longitude: 179.9), latitudeDelta: 1e-5, longitudeDelta: 1e-5)
        let items = Clusterer.items(in: region, of: snapshot, limit: 1)
        #expect(items.stations.isEmpty)
        #expect(items.clusters.count == 1)
        let cellSize = pow(2.0, Double(Clusterer.minimumLevel))
        let expected = "cluster:\(Clusterer.minimumLevel):\(Int(100 / cellSize)):\(Int(359.9 / cellSize))"
        #expect(items.clusters.first?.id == expected)
        #expect(items.clusters.first?.count == 3)
    }

    @Test func cellSummariesCoverEveryStationOnce() throws {
        let stations = DenseStations.make(from: try TestSupport.world(), count: 20_000, seed: 7)
        let snapshot = Self.snapshot(stations)
        #expect(snapshot.cells.summaries.reduce(0) { $0 + Int($1.sums.count) } == stations.count)
        #expect(snapshot.cells.slots.filter { $0 >= 0 }.count == snapshot.cells.count)
        #expect(Clusterer.count(in: .world, of: snapshot, stoppingAbove: .max) == stations.count)
    }
}
