/// `{"type":"report",...}`: the client contract's answer to `detail` (the formatter's form of
/// `particulars`), the station's detail screen in the client's units and locale: the callout's
/// title, subtitle, coordinate and lines (every known value), for a `weather` request's detail the
/// place it answers for, then the hourly and daily forecast, each point with its time on the
/// station's clock, summary, icon and lines.
struct Report {
    /// One forecast point as shown.
    struct Point {
        var time: Double
        /// The time in UTC, with its date (`UTCTime`).
        var label: String
        var local: LocalTime
        var summary: String?
        var icon: WeatherIcon?
        var lines: [Callout.Line]

        func write(to out: inout JSONWriter) {
            out.objectStart()
            out.key("time"); out.number(time)
            out.key("label"); out.string(label)
            local.writeMembers(to: &out)
            if let summary { out.key("summary"); out.string(summary) }
            if let icon { out.key("icon"); out.string(icon.rawValue) }
            Callout.Line.writeDetails(lines, to: &out)
            out.objectEnd()
        }
    }

    /// A time on the station's clock: `zone`, and `local` (ISO 8601 with the offset), the local
    /// `date` and its `weekday` in the client's locale, unless no clock shows that time
    /// (PROTOCOL.md, "Local time").
    struct LocalTime {
        var zone: String
        var civil: (local: String, date: String, weekday: String)?

        func writeMembers(to out: inout JSONWriter) {
            out.key("zone"); out.string(zone)
            guard let civil else { return }
            out.key("local"); out.string(civil.local)
            out.key("date"); out.string(civil.date)
            out.key("weekday"); out.string(civil.weekday)
        }
    }

    var client: String
    var day: Day
    var presentation: ResolvedPresentation
    var id: String
    var content: Callout.Content
    /// Where a `weather` request's detail is (its point, radius, place and reach); nil for `detail`.
    var anchor: FormatEngine.Anchor?
    var zone: String
    var icon: WeatherIcon?
    var stale: Bool
    var hourly: [Point]
    var daily: [Point]
    /// The forecast-on-demand state object as the filter wrote it (pending, ok, or failed with the reason).
    var forecast: ArraySlice<UInt8>?
    var snapshot: SnapshotInfo

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("report")
        out.key("client"); out.string(client)
        out.key("id"); out.string(id)
        out.key("day"); out.string(day.rawValue)
        out.key("units"); out.string(presentation.units.rawValue)
        out.key("windUnit"); out.string(presentation.windUnit.rawValue)
        out.key("locale"); out.string(presentation.locale.rawValue)
        content.writeMembers(to: &out)
        anchor?.writeMembers(to: &out)
        out.key("zone"); out.string(zone)
        if let icon { out.key("icon"); out.string(icon.rawValue) }
        if stale { out.key("stale"); out.bool(true) }
        for (key, points) in [("hourly" as StaticString, hourly), ("daily", daily)] {
            out.key(key)
            out.arrayStart()
            for point in points { point.write(to: &out) }
            out.arrayEnd()
        }
        if let forecast { out.key("forecast"); out.raw(forecast) }
        snapshot.writeMembers(to: &out)
        out.objectEnd()
        out.newline()
    }
}
