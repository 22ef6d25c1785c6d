/// Favorites trigger outlooks (`FilterOptions.forecasts`): a client's favorites list shows the
/// coming days of each favorite, so sending the list asks for the forecasts of its cells as an
/// opened detail does (PROTOCOL.md, "Forecast on demand"), for the first
/// `ForecastBook.maxFavoriteCells` distinct cells of the list only, and sends the list again
/// (`"reason":"forecast"`) when one of them arrives.
extension FilterEngine {
    /// Per entry of `entries`, what its `pinned` item says of its outlook (nil: none, because
    /// forecasts are off, the entry is past the bound, its station is in no snapshot or has a
    /// forecast of its own). Writes the `outlook` lines the cells need first.
    func favoriteOutlooks(_ name: String, _ entries: [FavoriteEntry], into out: inout JSONWriter) -> [ForecastAttachment?] {
        guard options.forecasts else { return Array(repeating: nil, count: entries.count) }
        var cells: [ForecastCell: ForecastAttachment] = [:]
        return entries.map { entry -> ForecastAttachment? in
            guard let point = outlookPoint(entry) else { return nil }
            let cell = ForecastCell(point)
            if let known = cells[cell] { return known }
            guard cells.count < ForecastBook.maxFavoriteCells else { return nil }
            let (attachment, awaited) = cellAttachment(cell, into: &out)
            if awaited { forecastBook.waitFavorites(client: name, cell: cell) }
            cells[cell] = attachment
            return attachment
        }
    }

    /// Where a favorite's forecast is: a place's or pin's own coordinate; a station's position in
    /// today's snapshot (else tomorrow's), nil when neither holds it or it has a forecast of its own.
    private func outlookPoint(_ entry: FavoriteEntry) -> Coordinate? {
        if let point = entry.point { return point }
        guard case .station(let id) = entry else { return nil }
        for day in Day.allCases {
            guard let snapshot = snapshot(for: day), let position = snapshot.position(of: id) else { continue }
            let station = snapshot.stations[position].current
            if let details = station.details, !(details.hourly.isEmpty && details.daily.isEmpty) { return nil }
            return station.coordinate
        }
        return nil
    }

    /// A `pinned` item's `"outlook"` member: `{"state":"pending"}`, `{"state":"failed","reason":…}`
    /// or `{"state":"ok","timeZone":…,"daily":[…]}` (the days only: a list row has no room for hours).
    static func writeOutlook(_ attachment: ForecastAttachment?, into out: inout JSONWriter) {
        guard let attachment else { return }
        out.key("outlook")
        out.objectStart()
        if let forecast = writeStateMembers(attachment, into: &out) {
            if let zone = forecast.timeZone { out.key("timeZone"); out.string(zone) }
            if forecast.state == .ok {
                out.key("daily")
                out.arrayStart()
                for point in forecast.daily { point.write(to: &out) }
                out.arrayEnd()
            }
        }
        out.objectEnd()
    }
}
