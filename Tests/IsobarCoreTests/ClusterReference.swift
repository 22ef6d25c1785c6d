import Foundation
@testable import IsobarCore

/// Clustering by brute force, written without the clusterer's grid or summaries: visit every
/// station, keep those the region contains, and if there are more than the limit, bin them by
/// cell of the level the clusterer chose and take each bin's means directly.
struct ClusterReference {
    struct Bin {
        var members: [Int] = []
        var latitudeSum = 0.0
        var longitudeSum = 0.0
        var temperatureSum = 0.0, temperatureCount = 0
        var windSpeedSum = 0.0, windSpeedCount = 0
        var windX = 0.0, windY = 0.0, windCount = 0, windSpeedOfVectors = 0.0
        var precipitationSum = 0.0, precipitationCount = 0

        mutating func add(_ station: Station, index: Int, longitude: Double) {
            members.append(index)
            latitudeSum += station.coordinate.latitude
            longitudeSum += longitude
            if let t = station.temperature { temperatureSum += t; temperatureCount += 1 }
            if let p = station.precipitation { precipitationSum += p; precipitationCount += 1 }
            if let s = station.windSpeed {
                windSpeedSum += s; windSpeedCount += 1
                if let d = station.windDirection {
                    windX += s * sin(d * .pi / 180)
                    windY += s * cos(d * .pi / 180)
                    windCount += 1
                    windSpeedOfVectors += s
                }
            }
        }
    }

    /// Positions of the stations shown singly.
    var shown: Set<Int32> = []
    /// Bins of two or more, by cluster id.
    var clusters: [String: Bin] = [:]
    var inView = 0

    /// `coordinates` are the stations' own, passed separately so the scan of every station for
    /// every region stays fast in a debug build.
    init(stations: [Station], coordinates: [Coordinate], region: Region, limit: Int) {
        // The region's box, checked inline: `Region.contains` per station is too slow unoptimised.
        let (south, north) = (region.minLatitude, region.maxLatitude)
        let ranges = region.allLongitudes ? [-180.0...180.0] : region.longitudeRanges
        let (west1, east1) = (ranges[0].lowerBound, ranges[0].upperBound)
        let (west2, east2) = ranges.count > 1 ? (ranges[1].lowerBound, ranges[1].upperBound) : (1.0, -1.0)
        var visible: [Int] = []
        coordinates.withUnsafeBufferPointer { coordinates in
            for i in 0..<coordinates.count {
                let c = coordinates[i]
                if c.latitude >= south, c.latitude <= north,
                   (c.longitude >= west1 && c.longitude <= east1) || (c.longitude >= west2 && c.longitude <= east2) {
                    visible.append(i)
                }
            }
        }
        inView = visible.count
        guard visible.count > limit else {
            shown = Set(visible.map(Int32.init))
            return
        }
        let level = Clusterer.level(for: region, limit: limit)
        let size = pow(2.0, Double(level))
        let center = region.center.longitude
        var bins: [Int: Bin] = [:]
        for i in visible {
            let station = stations[i]
            let row = Int((station.coordinate.latitude + 90) / size)
            let column = Int((station.coordinate.longitude + 180) / size)
            var longitude = station.coordinate.longitude
            let delta = longitude - center
            if delta > 180 { longitude -= 360 } else if delta < -180 { longitude += 360 }
            bins[row << 32 | column, default: Bin()].add(station, index: i, longitude: longitude)
        }
        for (key, bin) in bins {
            if bin.members.count == 1 {
                shown.insert(Int32(bin.members[0]))
            } else {
                clusters["cluster:\(level):\(key >> 32):\(key & 0xFFFF_FFFF)"] = bin
            }
        }
    }

    /// What is wrong with `cluster` against bin `bin`, or nil.
    static func mismatch(_ cluster: Cluster, _ bin: Bin) -> String? {
        let n = Double(bin.members.count)
        if cluster.count != bin.members.count { return "count \(cluster.count) != \(bin.members.count)" }
        if abs(cluster.coordinate.latitude - bin.latitudeSum / n) > 1e-5 { return "latitude \(cluster.coordinate.latitude) vs \(bin.latitudeSum / n)" }
        let longitude = bin.longitudeSum / n
        var difference = abs(cluster.coordinate.longitude - longitude).truncatingRemainder(dividingBy: 360)
        difference = min(difference, 360 - difference)
        if difference > 1e-5 || abs(cluster.coordinate.longitude) > 180 { return "longitude \(cluster.coordinate.longitude) vs \(longitude)" }
        if let problem = meanMismatch("temperature", cluster.temperature, bin.temperatureSum, bin.temperatureCount) { return problem }
        if let problem = meanMismatch("windSpeed", cluster.windSpeed, bin.windSpeedSum, bin.windSpeedCount) { return problem }
        if let problem = meanMismatch("precipitation", cluster.precipitation, bin.precipitationSum, bin.precipitationCount) { return problem }
        // The direction of a mean vector near zero is noise; compare only a clear one.
        let length = (bin.windX * bin.windX + bin.windY * bin.windY).squareRoot()
        if bin.windCount > 0, length > 1e-6 * max(1, bin.windSpeedOfVectors) {
            guard let direction = cluster.windDirection else { return "windDirection nil" }
            var expected = atan2(bin.windX, bin.windY) * 180 / .pi
            if expected < 0 { expected += 360 }
            var difference = abs(direction - expected).truncatingRemainder(dividingBy: 360)
            difference = min(difference, 360 - difference)
            if difference > 0.05 + 1e-3 { return "windDirection \(direction) vs \(expected)" }
        } else if bin.windCount == 0, cluster.windDirection != nil {
            return "windDirection \(String(describing: cluster.windDirection)) for no wind"
        }
        return nil
    }

    private static func meanMismatch(_ name: String, _ value: Double?, _ sum: Double, _ count: Int) -> String? {
        guard count > 0 else { return value == nil ? nil : "\(name) \(String(describing: value)) for no values" }
        guard let value else { return "\(name) nil, expected \(sum / Double(count))" }
        return abs(value - sum / Double(count)) <= 1e-3 ? nil : "\(name) \(value) vs \(sum / Double(count))"
    }
}
