/// The formatter's side of `nearest` and `search`: `closest` becomes `place` (the station's callout
/// content plus distance and bearing) and `matches` becomes `results` (each hit with its title),
/// in the client's field, units and locale, exactly as callouts and annotations are written.
extension FormatEngine {
    func place(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        let day = try object.optionalEnum("day", Day.self) ?? .today
        let titles = TitleFormatter(try Presentation(from: object).resolved(defaults))
        let point = try Coordinate(from: object.requireObject("point"))
        var hit: PlaceAnswer.Hit?
        if let stationField = object.field("station"), let stationObject = object.object(stationField) {
            let station = try Station(from: stationObject)
            guard let distance = try object.optionalNumber("distanceKm"), distance >= 0 else {
                throw MessageError("field \"distanceKm\" must be a non-negative number")
            }
            guard let bearing = try object.optionalNumber("bearing"), (0..<360).contains(bearing) else {
                throw MessageError("field \"bearing\" must be a number in [0, 360)")
            }
            hit = PlaceAnswer.Hit(id: station.id, distanceKm: distance, bearing: bearing,
                                  content: calloutContent(station, titles: titles, day: day))
        }
        PlaceAnswer(client: client, day: day, point: point, hit: hit, snapshot: try SnapshotInfo(from: object)).write(to: &out)
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
        let snapshot = try SnapshotInfo(from: object)
        var hits: [ResultsAnswer.Hit] = []
        try object.forEachElement(hitsField) { (item, _) throws(MessageError) in
            guard let item else { throw MessageError("\"hits\" must hold objects") }
            let station = try Station(from: item)
            hits.append(ResultsAnswer.Hit(station: station, title: titles.title(station),
                                          match: try item.optionalEnum("match", NameMatch.self) ?? .substring))
        }
        ResultsAnswer(client: client, day: day, query: query, presentation: presentation, snapshot: snapshot, hits: hits).write(to: &out)
    }

    /// A callout's content for `station`: its name (or id), "id · day", its coordinate and the
    /// labelled lines of everything known, in `titles`' units and locale.
    func calloutContent(_ station: Station, titles: TitleFormatter, day: Day) -> Callout.Content {
        Callout.Content(title: station.name.isEmpty ? station.id : station.name, subtitle: station.id + " · " + titles.dayLabel(day),
                        coordinate: station.coordinate,
                        details: titles.details(station, day: day, zone: zone(of: station)))
    }
}
