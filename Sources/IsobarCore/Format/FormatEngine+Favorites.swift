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
        let radiusKm = try object.optionalNumber("radiusKm")
        var items: [Starred.Item] = []
        try object.forEachElement(itemsField) { (item, _) throws(MessageError) in
            guard let item else { throw MessageError("\"items\" must hold objects") }
            let entry = try FavoriteEntry(from: item)
            if case .station(let id) = entry {
                items.append(try stationItem(item, id: id, titles: titles))
            } else {
                items.append(try placeItem(item, entry, titles: titles))
            }
        }
        Starred(client: client, reason: reason, presentation: presentation, radiusKm: radiusKm, items: items)
            .write(to: &out)
    }

    /// A station item: its name and coordinate from either day's snapshot, and per day its title
    /// and lines (`known` false when neither day holds it).
    private func stationItem(_ item: JSONObject, id: String, titles: TitleFormatter) throws(MessageError) -> Starred.Item {
        let today = try Self.dayStation(item, "today", id: id)
        let tomorrow = try Self.dayStation(item, "tomorrow", id: id)
        let known = today ?? tomorrow
        func shown(_ station: Station?, _ day: Day) -> Starred.Shown? {
            station.map { glance($0, day: day, titles: titles) }
        }
        return Starred.Item(entry: .station(id), known: known != nil, name: known?.name, coordinate: known?.coordinate,
                            today: shown(today, .today), tomorrow: shown(tomorrow, .tomorrow),
                            outlook: try outlook(item, station: known, point: known?.coordinate, titles: titles))
    }

    /// A place or pin item: its own name and coordinate, and per day the nearest station in reach
    /// (nil: none within the radius, or no snapshot).
    private func placeItem(_ item: JSONObject, _ entry: FavoriteEntry, titles: TitleFormatter) throws(MessageError) -> Starred.Item {
        let name: String?
        switch entry {
        case .place(let place): name = place.name
        case .pin(let pin): name = pin.name
        case .station: name = nil
        }
        var days: [Starred.Shown?] = []
        for (key, day) in [("today" as StaticString, Day.today), ("tomorrow", .tomorrow)] {
            guard let field = item.field(key), field.kind != .null else { days.append(nil); continue }
            guard let dayObject = item.object(field) else { throw MessageError("field \"\(key)\" must be an object or null") }
            let station = try Station(from: dayObject.requireObject("station"))
            let distanceKm = try dayObject.requireNumber("distanceKm")
            let bearing = try dayObject.requireNumber("bearing")
            guard distanceKm >= 0, (0..<360).contains(bearing) else {
                throw MessageError("\"distanceKm\" must not be negative and \"bearing\" must be in [0, 360)", code: .outOfRange)
            }
            var shown = glance(station, day: day, titles: titles)
            shown.subtitle = Self.stationLine(station, distanceKm: distanceKm, titles: titles, day: day)
            shown.reach = (station, distanceKm, bearing)
            days.append(shown)
        }
        return Starred.Item(entry: entry, known: true, name: name, coordinate: entry.point ?? Coordinate(latitude: 0, longitude: 0),
                            today: days[0], tomorrow: days[1], outlook: try outlook(item, station: nil, point: entry.point, titles: titles))
    }

    /// A day of an item as a city list row shows it: title, lines, icon (when the station has
    /// one), temperature (°F or °C, unrounded) and humidity (%), null where unknown.
    private func glance(_ station: Station, day: Day, titles: TitleFormatter) -> Starred.Shown {
        Starred.Shown(title: titles.title(station), details: titles.details(station, day: day, zone: zone(of: station)), icon: station.details?.icon,
                      temperature: titles.temperature(station.temperature), humidity: station.details?.humidity)
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
