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
        let (content, anchor) = try reportHeading(object, station: station, titles: titles, day: day)
        let stale = try stationObject.optionalBool("stale") == true
        let zone = zone(of: station)
        func points(_ points: [ForecastPoint]) -> [Report.Point] { points.map { Self.reportPoint($0, zone: zone, titles: titles) } }
        // Forecast on demand: pending, ok or failed with the reason, as the filter said.
        let forecast = object.field("forecast").flatMap { $0.kind == .object ? object.rawValue($0) : nil }
        Report(client: client, day: day, presentation: titles.presentation, id: station.id, content: content, anchor: anchor,
               zone: zone.name, icon: station.details?.icon, stale: stale,
               hourly: points(station.details?.hourly ?? []), daily: points(station.details?.daily ?? []),
               forecast: forecast, snapshot: try SnapshotInfo(from: object)).write(to: &out)
    }

    /// One forecast point as a detail and a favorite's outlook show it: its time, UTC label, local
    /// time, summary, icon and lines.
    static func reportPoint(_ point: ForecastPoint, zone: LocalZone, titles: TitleFormatter) -> Report.Point {
        Report.Point(time: point.time, label: UTCTime.text(point.time, withDate: true), local: localTime(point.time, zone: zone, titles: titles),
                     summary: point.summary, icon: point.icon, lines: titles.forecastLines(point))
    }

    /// A time on the station's clock (`zone`), with the local time, date and weekday in the
    /// client's locale unless no clock shows it (PROTOCOL.md, "Local time").
    static func localTime(_ unix: Double, zone: LocalZone, titles: TitleFormatter) -> Report.LocalTime {
        Report.LocalTime(zone: zone.name, civil: zone.civil(unix).map { time, offset in
            (time.iso(offset: offset), time.date, titles.phrases.weekdays[time.weekday])
        })
    }
}
