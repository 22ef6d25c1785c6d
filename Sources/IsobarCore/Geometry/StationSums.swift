#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Running sums over a set of stations, from which a cluster's means are taken: the count, the
/// positions, and each value with the number of stations that know it (unknown values are left
/// out of a mean, never counted as 0). Wind is summed as a vector so the cluster's direction is
/// the direction of the mean wind.
///
/// Shared by the per-grid-cell summaries (built once per snapshot) and the per-cluster
/// accumulators (built per request), so a whole grid cell joins a cluster in one `add`.
/// Counts are `Int32` (a snapshot's positions are `Int32` too) to keep the summary of every
/// non-empty grid cell small.
struct StationSums: Sendable {
    var count: Int32 = 0
    var temperatureCount: Int32 = 0
    var windSpeedCount: Int32 = 0
    var windCount: Int32 = 0
    var precipitationCount: Int32 = 0
    var latitudeSum = 0.0
    /// Sum of longitudes as the owner chose to unwrap them (raw in a grid cell's summary; on the
    /// region's side of the antimeridian in a cluster).
    var longitudeSum = 0.0
    var temperatureSum = 0.0
    var windSpeedSum = 0.0
    /// Sums of speed x sin(direction) and speed x cos(direction), over stations knowing both.
    var windX = 0.0
    var windY = 0.0
    var precipitationSum = 0.0
    /// The members' icons, where their feed gives one (a cluster's `icon`).
    var icons = IconTally()

    /// Adds one station at `latitude`, `longitude` (as the caller wants it summed). Takes the
    /// station by address: a `Station` value (even `borrowing`) was copied here, retaining and
    /// releasing its two strings, which cost more than the sums.
    @inline(__always)
    mutating func add(_ address: UnsafePointer<Station>, latitude: Double, longitude: Double) {
        count += 1
        latitudeSum += latitude
        longitudeSum += longitude
        if let t = address.pointee.temperature { temperatureSum += t; temperatureCount += 1 }
        if let p = address.pointee.precipitation { precipitationSum += p; precipitationCount += 1 }
        if let icon = address.pointee.details?.icon { icons.add(icon) }
        if let s = address.pointee.windSpeed {
            windSpeedSum += s
            windSpeedCount += 1
            if let d = address.pointee.windDirection {
                let radians = d * .pi / 180
                windX += s * sin(radians)
                windY += s * cos(radians)
                windCount += 1
            }
        }
    }

    /// Adds every station summed in `other`, their longitudes moved by `longitudeShift` degrees
    /// (0 or ±360: the same unwrap for all of them).
    @inline(__always)
    mutating func add(_ other: StationSums, longitudeShift: Double) {
        count += other.count
        latitudeSum += other.latitudeSum
        longitudeSum += other.longitudeSum + Double(other.count) * longitudeShift
        temperatureSum += other.temperatureSum
        temperatureCount += other.temperatureCount
        windSpeedSum += other.windSpeedSum
        windSpeedCount += other.windSpeedCount
        windX += other.windX
        windY += other.windY
        windCount += other.windCount
        precipitationSum += other.precipitationSum
        precipitationCount += other.precipitationCount
        icons.add(other.icons)
    }
}
