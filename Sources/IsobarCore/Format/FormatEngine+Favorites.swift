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
        let radiusKm = try object.optionalNumber("radiusKm")
        if let radiusKm { out.key("radiusKm"); out.number(radiusKm) }
        var count = 0
        out.key("items")
        out.arrayStart()
        try object.forEachElement(itemsField) { (item, _) throws(MessageError) in
            guard let item else { throw MessageError("\"items\" must hold objects") }
            let entry = try FavoriteEntry(from: item)
            out.objectStart()
            if case .station(let id) = entry {
                try writeStationItem(item, id: id, titles: titles, into: &out)
            } else {
                try writePlaceItem(item, entry, titles: titles, into: &out)
            }
            out.objectEnd()
            count += 1
        }
        out.arrayEnd()
        out.key("count"); out.int(count)
        out.objectEnd()
        out.newline()
    }

    /// `"id":…,"known":…,"name":…,"coordinate":…,"today":{"title","details",…}|null,"tomorrow":…`.
    private func writeStationItem(_ item: JSONObject, id: String, titles: TitleFormatter, into out: inout JSONWriter) throws(MessageError) {
        let today = try Self.dayStation(item, "today", id: id)
        let tomorrow = try Self.dayStation(item, "tomorrow", id: id)
        let known = today ?? tomorrow
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
            Self.writeGlance(station, titles: titles, into: &out)
            out.objectEnd()
        }
        try writeOutlook(item, station: known, point: known?.coordinate, titles: titles, into: &out)
    }

    /// `"place"|"pin":{…},"known":true,"name":…,"coordinate":…,"today":{"title","subtitle","station",
    /// "distanceKm","bearing","details",…}|null,"tomorrow":…`: the place's own name and coordinate,
    /// and per day the nearest station in reach (`null`: none within the radius, or no snapshot).
    private func writePlaceItem(_ item: JSONObject, _ entry: FavoriteEntry, titles: TitleFormatter, into out: inout JSONWriter) throws(MessageError) {
        entry.writeMember(to: &out)
        out.key("known"); out.bool(true)
        switch entry {
        case .place(let place): out.key("name"); out.string(place.name)
        case .pin(let pin): out.key("name"); out.string(pin.name)
        case .station: break
        }
        out.key("coordinate"); (entry.point ?? Coordinate(latitude: 0, longitude: 0)).write(to: &out)
        let days: [(StaticString, Day)] = [("today", .today), ("tomorrow", .tomorrow)]
        for (key, day) in days {
            out.key(key)
            guard let field = item.field(key), field.kind != .null else { out.null(); continue }
            guard let dayObject = item.object(field) else { throw MessageError("field \"\(key)\" must be an object or null") }
            let station = try Station(from: dayObject.requireObject("station"))
            let distanceKm = try dayObject.requireNumber("distanceKm")
            let bearing = try dayObject.requireNumber("bearing")
            guard distanceKm >= 0, (0..<360).contains(bearing) else {
                throw MessageError("\"distanceKm\" must not be negative and \"bearing\" must be in [0, 360)", code: .outOfRange)
            }
            out.objectStart()
            out.key("title"); out.string(titles.title(station))
            out.key("subtitle"); out.string(Self.stationLine(station, distanceKm: distanceKm, titles: titles, day: day))
            Self.writeStationReference(station, into: &out)
            out.key("distanceKm"); out.number(distanceKm)
            out.key("bearing"); out.number(bearing)
            Callout.Line.writeDetails(titles.details(station, day: day, zone: zone(of: station)), to: &out)
            Self.writeGlance(station, titles: titles, into: &out)
            out.objectEnd()
        }
        try writeOutlook(item, station: nil, point: entry.point, titles: titles, into: &out)
    }

    /// What a city list row shows: `"icon"` (when the station has one), `"temperature"` (°F or °C,
    /// unrounded) and `"humidity"` (%), null where unknown.
    private static func writeGlance(_ station: Station, titles: TitleFormatter, into out: inout JSONWriter) {
        if let icon = station.details?.icon { out.key("icon"); out.string(icon.rawValue) }
        out.key("temperature"); out.number(titles.temperature(station.temperature))
        out.key("humidity"); out.number(station.details?.humidity)
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
