/// The formatter's side of `nearest` and `search`: `closest` becomes `place` (the station's callout
/// content plus distance and bearing) and `matches` becomes `results` (each hit with its title),
/// in the client's field, units and locale, exactly as callouts and annotations are written.
extension FormatEngine {
    func place(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        let day = try object.optionalEnum("day", Day.self) ?? .today
        let titles = TitleFormatter(try Presentation(from: object).resolved(defaults))
        let point = try Coordinate(from: object.requireObject("point"))
        out.objectStart()
        out.key("type"); out.string("place")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        out.key("point"); point.write(to: &out)
        if let stationField = object.field("station"), let stationObject = object.object(stationField) {
            let station = try Station(from: stationObject)
            guard let distance = try object.optionalNumber("distanceKm"), distance >= 0 else {
                throw MessageError("field \"distanceKm\" must be a non-negative number")
            }
            guard let bearing = try object.optionalNumber("bearing"), (0..<360).contains(bearing) else {
                throw MessageError("field \"bearing\" must be a number in [0, 360)")
            }
            out.key("id"); out.string(station.id)
            out.key("distanceKm"); out.number(distance)
            out.key("bearing"); out.number(bearing)
            writeCalloutContent(station, titles: titles, day: day, into: &out)
        } else {
            out.key("id"); out.null()
        }
        try copySnapshotInfo(object, into: &out)
        out.objectEnd()
        out.newline()
    }

    func results(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        let day = try object.optionalEnum("day", Day.self) ?? .today
        let presentation = try Presentation(from: object).resolved(defaults)
        let titles = TitleFormatter(presentation)
        let query = try object.requireString("query")
        guard let hitsField = object.field("hits"), hitsField.kind == .array else {
            throw MessageError("field \"hits\" must be an array")
        }
        out.objectStart()
        out.key("type"); out.string("results")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        out.key("query"); out.string(query)
        presentation.write(to: &out)
        try copySnapshotInfo(object, into: &out)
        var count = 0
        out.key("hits")
        out.arrayStart()
        try object.forEachElement(hitsField) { (item, _) throws(MessageError) in
            guard let item else { throw MessageError("\"hits\" must hold objects") }
            let station = try Station(from: item)
            let match = try item.optionalEnum("match", NameMatch.self) ?? .substring
            out.objectStart()
            out.key("id"); out.string(station.id)
            out.key("name"); out.string(station.name)
            out.key("coordinate"); station.coordinate.write(to: &out)
            out.key("title"); out.string(titles.title(station))
            out.key("match"); out.string(match.rawValue)
            out.objectEnd()
            count += 1
        }
        out.arrayEnd()
        out.key("count"); out.int(count)
        out.objectEnd()
        out.newline()
    }

    /// A callout's station content (the keys `callout` writes after `clear`): `title`,
    /// `subtitle`, `coordinate`, `details`.
    func writeCalloutContent(_ station: Station, titles: TitleFormatter, day: Day, into out: inout JSONWriter) {
        calloutContent(station, titles: titles, day: day).writeMembers(to: &out)
    }

    /// A callout's content for `station`: its name (or id), "id · day", its coordinate and the
    /// labelled lines of everything known, in `titles`' units and locale.
    func calloutContent(_ station: Station, titles: TitleFormatter, day: Day) -> Callout.Content {
        Callout.Content(title: station.name.isEmpty ? station.id : station.name, subtitle: station.id + " · " + titles.dayLabel(day),
                        coordinate: station.coordinate,
                        details: titles.details(station, day: day, zone: zone(of: station)))
    }
}
