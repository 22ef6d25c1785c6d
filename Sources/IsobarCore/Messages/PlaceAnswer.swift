/// `{"type":"place",...}`: the client contract's answer to `nearest` (the formatter's form of
/// `closest`): the point, and the nearest station's callout content with its distance and bearing,
/// or `"id":null` when there was no snapshot of the day.
struct PlaceAnswer {
    struct Hit {
        var id: String
        var distanceKm: Double
        var bearing: Double
        var content: Callout.Content
    }

    var client: String
    var day: Day
    var point: Coordinate
    var hit: Hit?
    var snapshot: SnapshotInfo

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("place")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        out.key("point"); point.write(to: &out)
        if let hit {
            out.key("id"); out.string(hit.id)
            out.key("distanceKm"); out.number(hit.distanceKm)
            out.key("bearing"); out.number(hit.bearing)
            hit.content.writeMembers(to: &out)
        } else {
            out.key("id"); out.null()
        }
        snapshot.writeMembers(to: &out)
        out.objectEnd()
        out.newline()
    }
}
