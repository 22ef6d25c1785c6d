/// `{"type":"pinned",...}`: a client's favorites with their station data of both days, from the
/// filter for the formatter (which turns it into `starred`): the reason it is sent, the client's
/// presentation, the reach of a place or pin, and per item what each day shows.
///
/// A station item is `{"id":…,"today":{station}|null,"tomorrow":…}`; a place or pin item
/// `{"place"|"pin":{…},"today":{"distanceKm":…,"bearing":…,"station":{…}}|null,"tomorrow":…}`;
/// stations with their current details, and with `--forecasts` an item's `outlook`.
struct Pinned {
    /// One day of an item: the station it shows and, for a place or pin, how far and which way.
    struct Shown {
        var station: Station
        var reach: (distanceKm: Double, bearing: Double)?
    }

    /// One favorite: its entry and what it shows today and tomorrow (nil: nothing that day).
    struct Item {
        var entry: FavoriteEntry
        var today: Shown?
        var tomorrow: Shown?
        /// The coming days' forecast of the item's point (`--forecasts`; nil: no `outlook` member).
        var outlook: ForecastAttachment?
    }

    var client: String
    /// `joined`, `added`, `removed`, `unchanged`, `replaced`, `resync` or a snapshot change's reason.
    var reason: String
    var presentation: Presentation
    var radiusKm: Double
    var items: [Item]

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("pinned")
        out.key("client"); out.string(client)
        out.key("reason"); out.string(reason)
        presentation.write(to: &out)
        out.key("radiusKm"); out.number(radiusKm)
        out.key("items")
        out.arrayStart()
        for item in items {
            out.objectStart()
            item.entry.writeMember(to: &out)
            out.key("today"); Self.write(item.today, to: &out)
            out.key("tomorrow"); Self.write(item.tomorrow, to: &out)
            FilterEngine.writeOutlook(item.outlook, into: &out)
            out.objectEnd()
        }
        out.arrayEnd()
        out.objectEnd()
        out.newline()
    }

    private static func write(_ day: Shown?, to out: inout JSONWriter) {
        guard let day else { out.null(); return }
        out.objectStart()
        if let reach = day.reach {
            out.key("distanceKm"); out.number(reach.distanceKm)
            out.key("bearing"); out.number(reach.bearing)
            out.key("station")
            out.objectStart()
        }
        day.station.writeMembers(to: &out)
        day.station.writeDetails(to: &out)
        if day.reach != nil { out.objectEnd() }
        out.objectEnd()
    }
}
