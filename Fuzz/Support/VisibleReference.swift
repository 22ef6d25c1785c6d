import IsobarCore

/// The stations a viewport shows, by brute force over every station, written from PROTOCOL.md
/// ("Clustering, exactly", step 1) without the filter's `Region`, grid or clusterer.
enum VisibleReference {
    static func ids(of stations: [Station], latitude lat0: Double, longitude lon0: Double,
                    latitudeDelta dlat: Double, longitudeDelta dlon: Double) -> Set<String> {
        let minLat = max(-90, lat0 - dlat / 2)
        let maxLat = min(90, lat0 + dlat / 2)
        let low = lon0 - dlon / 2
        let high = lon0 + dlon / 2
        var intervals: [ClosedRange<Double>]
        if dlon >= 360 {
            intervals = [-180...180]
        } else if low < -180 {
            intervals = high >= low + 360 ? [-180...180] : [(low + 360)...180, -180...high]
        } else if high > 180 {
            intervals = high - 360 >= low ? [-180...180] : [low...180, -180...(high - 360)]
        } else {
            intervals = [low...high]
        }
        var ids = Set<String>()
        for station in stations {
            let c = station.coordinate
            if minLat <= c.latitude, c.latitude <= maxLat, intervals.contains(where: { $0.contains(c.longitude) }) {
                ids.insert(station.id)
            }
        }
        return ids
    }

    /// Whether `shown` (id -> stations it stands for) is a correct answer for a view whose
    /// visible stations are `visible`: exactly them when they fit `limit`, else singles among them
    /// and clusters covering the rest, every visible station counted once. Nil when it is, else
    /// what is wrong.
    static func mismatch(shown: [String: Int], visible: Set<String>, limit: Int) -> String? {
        if visible.count <= limit {
            let ids = Set(shown.keys)
            guard ids == visible else {
                return "shows \(ids.subtracting(visible).sorted().prefix(5)) not visible, misses \(visible.subtracting(ids).sorted().prefix(5)) (\(shown.count) shown, \(visible.count) visible)"
            }
            return nil
        }
        var total = 0
        for (id, count) in shown {
            if id.hasPrefix("cluster:") {
                total += count
            } else {
                guard visible.contains(id), count == 1 else { return "shows \(id) (count \(count)), not a visible station" }
                total += 1
            }
        }
        return total == visible.count ? nil : "items stand for \(total) stations, \(visible.count) are visible (limit \(limit))"
    }
}
