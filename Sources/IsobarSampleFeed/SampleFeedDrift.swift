import IsobarCore
import IsobarNet

/// Deterministic weather drift for the sample feed: the values of epoch n are a pure function of
/// (seed, day, station id, n), so every run, every process and every test sees the same weather at
/// the same epoch, and a watcher still sees it change from one epoch to the next.
///
/// Epoch 0 is the fixture exactly. Later epochs move each known value by a bounded offset around
/// the fixture value (not a random walk, so values never wander off): temperature +-6 °F, wind speed
/// +-5 mph (never below 0), wind direction +-45° (kept in 0..<360), chance of precipitation +-20
/// points (kept in 0...100). Unknown (null) values stay null, and a value that is already out of
/// range in the fixture (tomorrow's 105 %) is kept as it is so the fetcher's clamping path is
/// exercised at every epoch.
public struct SampleFeedDrift: Sendable, Equatable {
    public var seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
    }

    public func records(_ base: [OnXRecord], day: Day, epoch: Int) -> [OnXRecord] {
        guard epoch != 0 else { return base }
        return base.map { drift($0, day: day, epoch: epoch) }
    }

    func drift(_ record: OnXRecord, day: Day, epoch: Int) -> OnXRecord {
        var key = FNV1a()
        key.add(record.id)
        key.add(day.rawValue)
        let station = key.value
        var out = record
        if let temperature = record.temperature {
            out.temperature = Self.round(temperature + 6 * unit(station, epoch, 1), places: 1)
        }
        if let speed = record.windSpeed {
            out.windSpeed = max(0, Self.round(speed + 5 * unit(station, epoch, 2), places: 1))
        }
        if let direction = record.windDirection, (0...360).contains(direction) {
            let turned = (direction + 45 * unit(station, epoch, 3)).rounded()
            out.windDirection = (turned.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        }
        if let chance = record.chanceOfPrecipitation, (0...100).contains(chance) {
            out.chanceOfPrecipitation = min(100, max(0, (chance + 20 * unit(station, epoch, 4)).rounded()))
        }
        return out
    }

    /// A uniform draw in [-1, 1) for one station, epoch and field (SplitMix64 finaliser over the key).
    func unit(_ station: UInt64, _ epoch: Int, _ field: UInt64) -> Double {
        var z = seed &+ station &* 0x9E37_79B9_7F4A_7C15
        z = z &+ UInt64(bitPattern: Int64(epoch)) &* 0xBF58_476D_1CE4_E5B9
        z = z &+ field &* 0x94D0_49BB_1331_11EB
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(UInt64(1) << 53) * 2 - 1
    }

    static func round(_ value: Double, places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
