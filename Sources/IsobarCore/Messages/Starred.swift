/// `{"type":"starred",...}`: the client contract's list of favorites (the formatter's form of the
/// filter's `pinned`): per item its name, coordinate and, for each day, the title and callout
/// lines in the client's field, units and locale, with the few numbers a city list shows;
/// `count` is the badge.
struct Starred {
    /// One favorite: a station (`"id"`), or a place or pin (`"place"`/`"pin"`) with its own name
    /// and coordinate; `known` is false for a station neither day's snapshot holds.
    struct Item {
        var entry: FavoriteEntry
        var known: Bool
        var name: String?
        var coordinate: Coordinate?
        var today: Shown?
        var tomorrow: Shown?
        /// The coming days (`"outlook"`, when the filter runs with `--forecasts`; nil: no member).
        var outlook: Outlook? = nil
    }

    /// What one day shows of an item (nil: nothing that day).
    struct Shown {
        var title: String
        /// A place's or pin's: the answering station, its distance and the day.
        var subtitle: String?
        /// A place's or pin's: the station answering for it, how far from it and which way.
        var reach: (station: Station, distanceKm: Double, bearing: Double)?
        var details: [Callout.Line]
        var icon: WeatherIcon?
        /// °F or °C, unrounded.
        var temperature: Double?
        /// Percent.
        var humidity: Double?

        func write(to out: inout JSONWriter) {
            out.objectStart()
            out.key("title"); out.string(title)
            if let subtitle { out.key("subtitle"); out.string(subtitle) }
            if let reach {
                FormatEngine.writeStationReference(reach.station, into: &out)
                out.key("distanceKm"); out.number(reach.distanceKm)
                out.key("bearing"); out.number(reach.bearing)
            }
            Callout.Line.writeDetails(details, to: &out)
            if let icon { out.key("icon"); out.string(icon.rawValue) }
            out.key("temperature"); out.number(temperature)
            out.key("humidity"); out.number(humidity)
            out.objectEnd()
        }
    }

    var client: String
    var reason: String
    var presentation: ResolvedPresentation
    var radiusKm: Double?
    var items: [Item]

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("starred")
        out.key("client"); out.string(client)
        out.key("reason"); out.string(reason)
        presentation.write(to: &out)
        if let radiusKm { out.key("radiusKm"); out.number(radiusKm) }
        out.key("items")
        out.arrayStart()
        for item in items {
            out.objectStart()
            item.entry.writeMember(to: &out)
            out.key("known"); out.bool(item.known)
            out.key("name"); out.string(item.name)
            out.key("coordinate")
            if let coordinate = item.coordinate { coordinate.write(to: &out) } else { out.null() }
            for (key, shown) in [("today" as StaticString, item.today), ("tomorrow", item.tomorrow)] {
                out.key(key)
                if let shown { shown.write(to: &out) } else { out.null() }
            }
            item.outlook?.write(to: &out)
            out.objectEnd()
        }
        out.arrayEnd()
        out.key("count"); out.int(items.count)
        out.objectEnd()
        out.newline()
    }

    /// `"outlook":{"state":"pending"}`, `{"state":"failed","reason":…}` or
    /// `{"state":"ok","zone":…,"days":[{time,label,zone,local,date,weekday,summary,icon,details}]}`:
    /// a favorite's coming days, worded like a detail's daily forecast, local times in `zone`.
    struct Outlook {
        var state: String
        var reason: String?
        var titles: TitleFormatter
        var zone: LocalZone = .utc
        var days: [ForecastPoint] = []

        func write(to out: inout JSONWriter) {
            out.key("outlook")
            out.objectStart()
            out.key("state"); out.string(state)
            if let reason { out.key("reason"); out.string(reason) }
            if state == "ok" {
                out.key("zone"); out.string(zone.name)
                out.key("days")
                out.arrayStart()
                for day in days { FormatEngine.reportPoint(day, zone: zone, titles: titles).write(to: &out) }
                out.arrayEnd()
            }
            out.objectEnd()
        }
    }
}
