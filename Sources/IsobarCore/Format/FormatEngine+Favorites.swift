/// The formatter's side of favorites: the filter's `pinned` (each favorite's station data for
/// both days) becomes the client's `starred` list: per item its name, coordinate and, for each
/// day, the title and callout detail lines in the client's field, units and locale; `count` is
/// the badge.
extension FormatEngine {
    func starred(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        let reason = try object.optionalString("reason") ?? ""
        let presentation = try Presentation(from: object).resolved(defaults)
        let titles = TitleFormatter(presentation)
        guard let itemsField = object.field("items"), itemsField.kind == .array else {
            throw MessageError("field \"items\" must be an array")
        }
        out.objectStart()
        out.key("type"); out.string("starred")
        out.key("client"); out.string(client)
        out.key("reason"); out.string(reason)
        presentation.write(to: &out)
        var count = 0
        out.key("items")
        out.arrayStart()
        try object.forEachElement(itemsField) { (item, _) throws(MessageError) in
            guard let item else { throw MessageError("\"items\" must hold objects") }
            let id = try item.requireName("id")
            let today = try Self.dayStation(item, "today", id: id)
            let tomorrow = try Self.dayStation(item, "tomorrow", id: id)
            let known = today ?? tomorrow
            out.objectStart()
            out.key("id"); out.string(id)
            out.key("known"); out.bool(known != nil)
            out.key("name"); out.string(known?.name)
            out.key("coordinate")
            if let known { known.coordinate.write(to: &out) } else { out.null() }
            for (key, day, station) in [("today", Day.today, today), ("tomorrow", Day.tomorrow, tomorrow)] {
                out.key(text: key)
                guard let station else { out.null(); continue }
                out.objectStart()
                out.key("title"); out.string(titles.title(station))
                Callout.Line.writeDetails(titles.details(station, day: day, zone: zone(of: station)), to: &out)
                out.objectEnd()
            }
            out.objectEnd()
            count += 1
        }
        out.arrayEnd()
        out.key("count"); out.int(count)
        out.objectEnd()
        out.newline()
    }

    /// The item's station for one day (`key`), nil when that day does not know it; its id must be
    /// the item's.
    private static func dayStation(_ item: JSONObject, _ key: StaticString, id: String) throws(MessageError) -> Station? {
        guard let field = item.field(key), field.kind != .null else { return nil }
        guard let object = item.object(field) else { throw MessageError("field \"\(key)\" must be a station object or null") }
        let station = try Station(from: object)
        guard station.id == id else { throw MessageError("the \(key) station \"\(station.id)\" is not the favorite \"\(id)\"") }
        return station
    }
}
