/// `spot` (a `weather` request with its place resolved by the places stage): the nearest station
/// of the client's day to the point, if it is within the request's radius, answered as `ambient`
/// (the current values, for `conditions`) or, for `"detail":true` with a station in reach, as
/// `particulars` carrying the point and place (for a `report` under the place's name). Like
/// `nearest`, it needs no viewport and changes no state.
extension FilterEngine {
    func spot(_ spot: Spot, now: Double, into out: inout JSONWriter) {
        let (day, presentation) = context(client: spot.client, day: spot.day, presentation: spot.presentation, now: now)
        let snapshot = snapshot(for: day)
        var found: (station: Station, hit: NearestIndex.Hit)?
        if let nearest = snapshot?.nearestStation(to: spot.point), nearest.hit.distanceKm <= spot.radiusKm {
            found = nearest
        }
        let hit = found.map { found in
            Ambient.Hit(station: found.station, distanceKm: (found.hit.distanceKm * 1000).rounded() / 1000,
                        bearing: Self.roundedBearing(from: spot.point, to: found.station.coordinate))
        }
        if spot.detail, let snapshot, let found, let hit {
            // A place's forecast is the place's own (its point's cell), not its nearest station's.
            let forecast = forecastAttachment(station: found.station, point: spot.point, client: spot.client, again: .spot(spot), into: &out)
            writeParticulars(client: spot.client, day: day, snapshot: snapshot, position: Int(found.hit.index),
                             presentation: presentation, forecast: forecast, into: &out) { out in
                Ambient.writeLocation(of: spot, hit: (hit.distanceKm, hit.bearing), to: &out)
            }
            return
        }
        Ambient(client: spot.client, day: day, snapshot: snapshot?.info ?? .none, presentation: presentation, spot: spot, hit: hit)
            .write(to: &out)
    }

    /// The bearing as `closest` and `ambient` write it: R1, a value that rounds to 360 written 0.
    static func roundedBearing(from point: Coordinate, to target: Coordinate) -> Double {
        let bearing = (GreatCircle.bearing(from: point, to: target) * 10).rounded() / 10
        return bearing >= 360 ? 0 : bearing
    }
}
