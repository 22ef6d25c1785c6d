/// The formatter's side of `detail`: `particulars` becomes `report`, the station's detail screen
/// in the client's units and locale: the callout's title, subtitle and lines (every known value),
/// then the hourly and daily forecast, each point with its time, summary, icon and lines.
extension FormatEngine {
    func report(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        let day = try object.optionalEnum("day", Day.self) ?? .today
        let titles = TitleFormatter(try Presentation(from: object).resolved(defaults))
        let stationObject = try object.requireObject("station")
        let station = try Station(from: stationObject)
        out.objectStart()
        out.key("type"); out.string("report")
        out.key("client"); out.string(client)
        out.key("id"); out.string(station.id)
        out.key("day"); out.string(day.rawValue)
        out.key("units"); out.string(titles.presentation.units.rawValue)
        out.key("windUnit"); out.string(titles.presentation.windUnit.rawValue)
        out.key("locale"); out.string(titles.presentation.locale.rawValue)
        try writeReportHeading(object, station: station, titles: titles, day: day, into: &out)
        let zone = zone(of: station)
        out.key("zone"); out.string(zone.name)
        if let icon = station.details?.icon { out.key("icon"); out.string(icon.rawValue) }
        if try stationObject.optionalBool("stale") == true { out.key("stale"); out.bool(true) }
        for (key, points) in [("hourly" as StaticString, station.details?.hourly ?? []), ("daily", station.details?.daily ?? [])] {
            out.key(key)
            out.arrayStart()
            for point in points { Self.writeForecastPoint(point, zone: zone, titles: titles, into: &out) }
            out.arrayEnd()
        }
        // Forecast on demand: pending, ok or failed with the reason, as the filter said.
        if let forecast = object.field("forecast"), forecast.kind == .object { out.key("forecast"); out.raw(object.rawValue(forecast)) }
        try copySnapshotInfo(object, into: &out)
        out.objectEnd()
        out.newline()
    }

    /// A forecast point's time on the station's clock: `zone`, `local` (ISO 8601 with the
    /// offset), the local `date` and its `weekday` in the client's locale (PROTOCOL.md, "Local
    /// time"); nothing but the zone for a time no clock shows.
    static func writeLocalTime(_ unix: Double, zone: LocalZone, titles: TitleFormatter, into out: inout JSONWriter) {
        out.key("zone"); out.string(zone.name)
        guard let (time, offset) = zone.civil(unix) else { return }
        out.key("local"); out.string(time.iso(offset: offset))
        out.key("date"); out.string(time.date)
        out.key("weekday"); out.string(titles.phrases.weekdays[time.weekday])
    }
}
