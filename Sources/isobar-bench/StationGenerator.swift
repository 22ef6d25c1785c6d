import Foundation
import IsobarCore

/// Deterministic synthetic stations: station `i` is world station `i % count` moved by up to
/// `jitter` degrees (seeded), with its own id and weather values drawn from the same seed.
/// The first `world.count` stations are the real ones, unmoved in name but jittered in place.
struct StationGenerator {
    let world: [WorldStation]
    let seed: UInt64
    /// Largest move in degrees, each axis.
    let jitter: Double

    init(world: [WorldStation], seed: UInt64 = 42, jitter: Double = 1.0) {
        self.world = world
        self.seed = seed
        self.jitter = jitter
    }

    func stations(count: Int) -> [Station] {
        var rng = SplitMix64(seed: seed)
        var result: [Station] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let base = world[i % world.count]
            let copy = i / world.count
            let latitude = Self.round5(min(90, max(-90, base.latitude + rng.uniform(-jitter...jitter))))
            var longitude = base.longitude + rng.uniform(-jitter...jitter)
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            longitude = Self.round5(longitude)
            // A rough climate: warmer near the equator, with noise; a few unknowns like real feeds.
            let unknown = rng.next() % 50 == 0
            let temperature = unknown ? nil : Self.round1(85 - abs(latitude) * 0.9 + rng.uniform(-12...12))
            let windSpeed = Self.round1(rng.uniform(0...35))
            let windDirection = Double(rng.next() % 361)
            let precipitation = Double(rng.next() % 101)
            result.append(Station(
                id: copy == 0 ? base.id : "\(base.id)-\(copy)",
                name: base.name,
                coordinate: Coordinate(latitude: latitude, longitude: longitude),
                temperature: temperature, windSpeed: windSpeed, windDirection: windDirection,
                precipitation: precipitation))
        }
        return result
    }

    /// When the generated snapshot was fetched: now, as for a live feed, so no station is older than
    /// the filter's `--stale-after` (60 min) during a run. (Until 2026-11-25 this was a fixed time,
    /// 2026-11-22 03:05 UTC: from an hour after it every station of every run was marked stale, each
    /// annotation ~14 bytes longer. `clients --stale-data` still measures that workload.)
    static func fetchedNow() -> Double { Date().timeIntervalSince1970.rounded() }

    /// Long enough ago that every station is stale (`clients --stale-data`).
    static func fetchedLongAgo() -> Double { fetchedNow() - 2 * 86_400 }

    /// Writes `stations` as one complete snapshot (station lines with seq 0..<n, then the end
    /// marker) to `path`, streaming so a million lines never sit in memory as text.
    static func writeSnapshot(_ stations: [Station], day: Day = .today, fetchedAt: Double = fetchedNow(),
                              to path: String) throws -> (id: String, bytes: Int) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw WorldStations.ReadError(description: "cannot create \(path)")
        }
        defer { try? handle.close() }
        let id = OnXFeed.snapshotID(day: day, stations: stations)
        var writer = JSONWriter(capacity: 1 << 20)
        var total = 0
        for (seq, station) in stations.enumerated() {
            StationMessage(day: day, snapshot: id, seq: seq, station: station).write(to: &writer)
            if writer.bytes.count >= 1 << 20 {
                total += writer.bytes.count
                try handle.write(contentsOf: writer.bytes)
                writer.bytes.removeAll(keepingCapacity: true)
            }
        }
        SnapshotEnd(day: day, snapshot: id, count: stations.count, source: .feed, fetchedAt: fetchedAt).write(to: &writer)
        total += writer.bytes.count
        try handle.write(contentsOf: writer.bytes)
        return (id, total)
    }

    /// The snapshot as lines (without `\n`), for publishing on the bus.
    static func snapshotLines(_ stations: [Station], day: Day = .today, fetchedAt: Double = fetchedNow()) -> (id: String, lines: [[UInt8]]) {
        let id = OnXFeed.snapshotID(day: day, stations: stations)
        var lines: [[UInt8]] = []
        lines.reserveCapacity(stations.count + 1)
        var writer = JSONWriter(capacity: 512)
        for (seq, station) in stations.enumerated() {
            writer.bytes.removeAll(keepingCapacity: true)
            StationMessage(day: day, snapshot: id, seq: seq, station: station).write(to: &writer)
            lines.append(Array(writer.bytes.dropLast()))
        }
        writer.bytes.removeAll(keepingCapacity: true)
        SnapshotEnd(day: day, snapshot: id, count: stations.count, source: .feed, fetchedAt: fetchedAt).write(to: &writer)
        lines.append(Array(writer.bytes.dropLast()))
        return (id, lines)
    }

    private static func round5(_ v: Double) -> Double { (v * 100_000).rounded() / 100_000 }
    private static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}
