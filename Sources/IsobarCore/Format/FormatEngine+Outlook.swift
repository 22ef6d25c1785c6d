/// The coming days of a favorite (`pinned` items' `outlook`, when the filter runs with
/// `--forecasts`): worded for the client in its `starred` list like a detail's daily forecast.
extension FormatEngine {
    /// A `starred` item's `"outlook"` read from its `pinned` item (nil: the item has none): its
    /// state, the failure's reason, and when ok the days in the forecast's zone (else the
    /// favorite's station's, else the zone index's for `point`).
    func outlook(_ item: JSONObject, station: Station?, point: Coordinate?, titles: TitleFormatter) throws(MessageError) -> Starred.Outlook? {
        guard let field = item.field("outlook"), field.kind != .null else { return nil }
        guard let outlook = item.object(field) else { throw MessageError("field \"outlook\" must be an object") }
        let state = try outlook.requireString("state")
        guard state == "pending" || ForecastMessage.State(rawValue: state) != nil else {
            throw MessageError("outlook.state must be pending, ok or failed, got \"\(state.prefix(20))\"", code: .outOfRange)
        }
        var result = Starred.Outlook(state: state, reason: try outlook.optionalString("reason"), titles: titles)
        if state == "ok" {
            let details = try StationDetails.read(from: outlook)
            result.zone = details?.timeZone.flatMap(LocalZone.init(identifier:)) ?? station.map(zone(of:))
                ?? point.flatMap { zones?.zone(near: $0) } ?? .utc
            result.days = details?.daily ?? []
        }
        return result
    }
}
