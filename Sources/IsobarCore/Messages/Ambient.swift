/// `{"type":"ambient",...}`: the filter's answer to a `spot` (a `weather` request whose place the
/// places stage resolved), for the formatter (which turns it into `conditions`): the point, its
/// radius and place, and the nearest station of the client's day within the radius with its
/// distance and bearing and current values, or `"station":null` when none is in reach.
struct Ambient {
    /// The station in reach, how far from the point (km, rounded to metres) and which way: the
    /// same triple as `closest`'s nearest station.
    typealias Hit = Closest.Hit

    var client: String
    var day: Day
    var snapshot: SnapshotInfo
    var presentation: Presentation
    var spot: Spot
    var hit: Hit?

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("ambient")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        snapshot.writeMembers(to: &out)
        presentation.write(to: &out)
        Self.writeLocation(of: spot, hit: hit.map { ($0.distanceKm, $0.bearing) }, to: &out)
        out.key("station")
        if let hit {
            out.objectStart()
            let station = hit.station.current
            station.writeMembers(to: &out)
            station.writeDetails(to: &out)
            out.objectEnd()
        } else {
            out.null()
        }
        out.objectEnd()
        out.newline()
    }

    /// The spot's point, radius and place, and the station's distance and bearing when one is in
    /// reach: members of `ambient`, and of a `particulars` answering a spot that asked for detail.
    static func writeLocation(of spot: Spot, hit: (distanceKm: Double, bearing: Double)?, to out: inout JSONWriter) {
        out.key("point"); spot.point.write(to: &out)
        out.key("radiusKm"); out.number(spot.radiusKm)
        spot.writePlace(to: &out)
        if let hit {
            out.key("distanceKm"); out.number(hit.distanceKm)
            out.key("bearing"); out.number(hit.bearing)
        }
    }
}
