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
        let bearing = found.map { Self.roundedBearing(from: spot.point, to: $0.station.coordinate) }
        let located = { (out: inout JSONWriter) in
            out.key("point"); spot.point.write(to: &out)
            out.key("radiusKm"); out.number(spot.radiusKm)
            spot.writePlace(to: &out)
            if let found, let bearing {
                out.key("distanceKm"); out.number((found.hit.distanceKm * 1000).rounded() / 1000)
                out.key("bearing"); out.number(bearing)
            }
        }
        if spot.detail, let snapshot, let found {
            // A place's forecast is the place's own (its point's cell), not its nearest station's.
            let forecast = forecastAttachment(station: found.station, point: spot.point, client: spot.client, again: .spot(spot), into: &out)
            writeParticulars(client: spot.client, day: day, snapshot: snapshot, position: Int(found.hit.index),
                             presentation: presentation, forecast: forecast, into: &out, extra: located)
            return
        }
        out.objectStart()
        out.key("type"); out.string("ambient")
        out.key("client"); out.string(spot.client)
        out.key("day"); out.string(day.rawValue)
        writeFindSnapshotInfo(snapshot, into: &out)
        presentation.write(to: &out)
        located(&out)
        out.key("station")
        if let found {
            out.objectStart()
            let station = found.station.current
            station.writeMembers(to: &out)
            station.writeDetails(to: &out)
            out.objectEnd()
        } else {
            out.null()
        }
        out.objectEnd()
        out.newline()
    }

    /// The bearing as `closest` and `ambient` write it: R1, a value that rounds to 360 written 0.
    static func roundedBearing(from point: Coordinate, to target: Coordinate) -> Double {
        let bearing = (GreatCircle.bearing(from: point, to: target) * 10).rounded() / 10
        return bearing >= 360 ? 0 : bearing
    }
}
