/// The coming days of a favorite (`pinned` items' `outlook`, when the filter runs with
/// `--forecasts`): worded for the client in its `starred` list like a detail's daily forecast.
extension FormatEngine {
    /// A `starred` item's `"outlook"`: `{"state":"pending"}`, `{"state":"failed","reason":…}` or
    /// `{"state":"ok","zone":…,"days":[{time,label,zone,local,date,weekday,summary,icon,details}]}`,
    /// local times in the forecast's zone (else the favorite's station's, else the zone index's
    /// for `point`). Nothing when the pinned item has no outlook.
    func writeOutlook(_ item: JSONObject, station: Station?, point: Coordinate?, titles: TitleFormatter,
                      into out: inout JSONWriter) throws(MessageError) {
        guard let field = item.field("outlook"), field.kind != .null else { return }
        guard let outlook = item.object(field) else { throw MessageError("field \"outlook\" must be an object") }
        let state = try outlook.requireString("state")
        guard state == "pending" || ForecastMessage.State(rawValue: state) != nil else {
            throw MessageError("outlook.state must be pending, ok or failed, got \"\(state.prefix(20))\"", code: .outOfRange)
        }
        out.key("outlook")
        out.objectStart()
        out.key("state"); out.string(state)
        if let reason = try outlook.optionalString("reason") { out.key("reason"); out.string(reason) }
        if state == "ok" {
            let details = try StationDetails.read(from: outlook)
            let zone = details?.timeZone.flatMap(LocalZone.init(identifier:)) ?? station.map(zone(of:))
                ?? point.flatMap { zones?.zone(near: $0) } ?? .utc
            out.key("zone"); out.string(zone.name)
            out.key("days")
            out.arrayStart()
            for day in details?.daily ?? [] { Self.writeForecastPoint(day, zone: zone, titles: titles, into: &out) }
            out.arrayEnd()
        }
        out.objectEnd()
    }

    /// One forecast point as a detail and a favorite show it: its time, UTC label, local time,
    /// summary, icon and lines.
    static func writeForecastPoint(_ point: ForecastPoint, zone: LocalZone, titles: TitleFormatter, into out: inout JSONWriter) {
        out.objectStart()
        out.key("time"); out.number(point.time)
        out.key("label"); out.string(UTCTime.text(point.time, withDate: true))
        writeLocalTime(point.time, zone: zone, titles: titles, into: &out)
        if let summary = point.summary { out.key("summary"); out.string(summary) }
        if let icon = point.icon { out.key("icon"); out.string(icon.rawValue) }
        Callout.Line.writeDetails(titles.forecastLines(point), to: &out)
        out.objectEnd()
    }
}
