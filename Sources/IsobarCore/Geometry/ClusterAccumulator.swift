#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Accumulates the members of one cluster cell: stations one at a time (in the cells the region's
/// edge cuts) and whole grid cells from their precomputed summaries.
struct ClusterAccumulator {
    var sums = StationSums()
    /// A member's position in the snapshot: the station shown when the cell ends with one member.
    var first: Int32 = -1

    @inline(__always)
    mutating func add(_ station: UnsafePointer<Station>, index: Int32, latitude: Double, unwrappedLongitude: Double) {
        if sums.count == 0 { first = index }
        sums.add(station, latitude: latitude, longitude: unwrappedLongitude)
    }

    /// Adds a whole grid cell, all of whose stations unwrap by `longitudeShift`; `member` is the
    /// position of one of them.
    @inline(__always)
    mutating func add(_ cell: StationSums, longitudeShift: Double, member: Int32) {
        if sums.count == 0 { first = member }
        sums.add(cell, longitudeShift: longitudeShift)
    }

    /// The cluster, with its position rounded to 1e-6° and its means to 1e-3: sums taken in a
    /// different order (a grid cell summed whole at one pan, station by station at the next)
    /// differ in the last bits, and unrounded they would change the fingerprint and send the
    /// client an update for a cluster that did not change.
    func cluster(key: UInt64) -> Cluster {
        let count = Double(sums.count)
        var longitude = sums.longitudeSum / count
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        var direction: Double? = nil
        if sums.windCount > 0, sums.windX != 0 || sums.windY != 0 {
            var degrees = atan2(sums.windX, sums.windY) * 180 / .pi
            if degrees < 0 { degrees += 360 }
            direction = (degrees * 10).rounded() / 10
        }
        return Cluster(
            key: key, count: Int(sums.count),
            coordinate: Coordinate(latitude: Self.round(sums.latitudeSum / count, 1e6), longitude: Self.round(longitude, 1e6)),
            temperature: Self.mean(sums.temperatureSum, sums.temperatureCount),
            windSpeed: Self.mean(sums.windSpeedSum, sums.windSpeedCount),
            windDirection: direction,
            precipitation: Self.mean(sums.precipitationSum, sums.precipitationCount),
            icon: sums.icons.mostCommon)
    }

    private static func mean(_ sum: Double, _ count: Int32) -> Double? {
        count > 0 ? round(sum / Double(count), 1e3) : nil
    }

    private static func round(_ value: Double, _ scale: Double) -> Double {
        (value * scale).rounded() / scale
    }
}
