/// `{"type":"closest",...}`: the filter's answer to `nearest`, for the formatter (which turns it
/// into `place`): the point, and the nearest station of the client's day with its distance and
/// bearing, or `"id":null` when the filter holds no snapshot of that day.
struct Closest {
    /// The nearest station, how far (km, rounded to metres) and its bearing from the point.
    struct Hit {
        var station: Station
        var distanceKm: Double
        var bearing: Double
    }

    var client: String
    var day: Day
    var snapshot: SnapshotInfo
    var presentation: Presentation
    var point: Coordinate
    var hit: Hit?

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("closest")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        snapshot.writeMembers(to: &out)
        presentation.write(to: &out)
        out.key("point"); point.write(to: &out)
        if let hit {
            out.key("id"); out.string(hit.station.id)
            out.key("distanceKm"); out.number(hit.distanceKm)
            out.key("bearing"); out.number(hit.bearing)
            out.key("station")
            out.objectStart()
            hit.station.writeMembers(to: &out)
            out.objectEnd()
        } else {
            out.key("id"); out.null()
            out.key("station"); out.null()
        }
        out.objectEnd()
        out.newline()
    }
}
