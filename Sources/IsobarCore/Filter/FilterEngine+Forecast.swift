/// Forecasts on demand (`FilterOptions.forecasts`): the detail of a station without a forecast
/// of its own, or of a place, gets the forecast of its 0.1° cell from the forecast stage. The
/// filter asks for a cell (`outlook`) only when a client opens a detail in it and it holds no
/// current answer, keeps each `forecast` per cell, and sends the details that waited for it
/// again, as it does when a snapshot changes. No station is ever asked for unless a client looks.
extension FilterEngine {
    /// The forecast a detail at `point` shows, writing an `outlook` first when the cell has none
    /// current and none asked for recently; nil when forecasts are off or `station` has its own.
    func forecastAttachment(station: Station, point: Coordinate, client: String, again: ForecastBook.Reissue,
                            into out: inout JSONWriter) -> ForecastAttachment? {
        guard options.forecasts else { return nil }
        if let details = station.details, !(details.hourly.isEmpty && details.daily.isEmpty) { return nil }
        let cell = ForecastCell(point)
        let (attachment, awaited) = cellAttachment(cell, into: &out)
        if awaited { forecastBook.wait(client: client, cell: cell, again: again) }
        return attachment
    }

    /// What `cell` holds, writing an `outlook` when it has no current forecast and none was asked
    /// for within `ForecastBook.askAgainAfter`; `awaited` when an answer is (still) to come.
    func cellAttachment(_ cell: ForecastCell, into out: inout JSONWriter) -> (attachment: ForecastAttachment, awaited: Bool) {
        let now = wallClock()
        let ask = { (out: inout JSONWriter) in OutlookRequest(cell: cell).write(to: &out) }
        switch forecastBook.entries[cell] {
        case .held(let held) where now < held.expiresAt:
            return (.held(held), false)
        case .held(let held):
            ask(&out)
            forecastBook.set(cell, .refreshing(held, at: now), now: now)
            return (.held(held), true)
        case .refreshing(let held, let at):
            if now >= at + ForecastBook.askAgainAfter {
                ask(&out)
                forecastBook.set(cell, .refreshing(held, at: now), now: now)
            }
            return (.held(held), true)
        case .asked(let at) where now < at + ForecastBook.askAgainAfter:
            return (.pending, true)
        case .asked, nil:
            ask(&out)
            forecastBook.set(cell, .asked(at: now), now: now)
            return (.pending, true)
        }
    }

    /// A `forecast` from the forecast stage: kept for its cell, and every detail that waited for
    /// it answered again. Consumed (never passed on) whether forecasts are on or not.
    func receive(_ forecast: ForecastMessage, now: Double, into out: inout JSONWriter) {
        guard options.forecasts else { return }
        forecastBook.set(forecast.cell, .held(forecast), now: wallClock())
        // Favorites lists showing this cell's coming days: sent again with them.
        for name in forecastBook.takeFavoritesWaiting(forecast.cell) where favoriteLists[name]?.entries.isEmpty == false {
            writePinned(name, reason: "forecast", into: &out)
        }
        for again in forecastBook.takeWaiting(forecast.cell) {
            switch again {
            case .detail(let request):
                do {
                    try detail(request, now: now, into: &out)
                } catch {
                    ErrorMessage(stage: Self.stage, message: error.message, excerpt: "", client: request.client, code: error.code).write(to: &out)
                }
            case .spot(let spot):
                self.spot(spot, now: now, into: &out)
            }
        }
    }

    /// The forecast members of a `particulars` station (after its own fields): the cell's zone
    /// when the station names none, and the hourly and daily points.
    static func writeForecastPoints(_ attachment: ForecastAttachment?, station: Station, into out: inout JSONWriter) {
        guard case .held(let forecast) = attachment, forecast.state == .ok else { return }
        if let zone = forecast.timeZone, station.details?.timeZone == nil, station.details?.utcOffset == nil {
            out.key("timeZone"); out.string(zone)
        }
        forecast.writePoints(to: &out)
    }

    /// The `forecast` member of a `particulars` line: `{"state":"pending"}`, `{"state":"ok",
    /// "fetchedAt":…,"expiresAt":…}` or `{"state":"failed","reason":…,…}`.
    static func writeForecastState(_ attachment: ForecastAttachment?, into out: inout JSONWriter) {
        guard let attachment else { return }
        out.key("forecast")
        out.objectStart()
        if let forecast = writeStateMembers(attachment, into: &out) {
            out.key("fetchedAt"); out.number(forecast.fetchedAt)
            out.key("expiresAt"); out.number(forecast.expiresAt)
        }
        out.objectEnd()
    }

    /// `"state":…` (and a failure's `"reason"`) of an attachment, as members of the object being
    /// written; the held forecast, if any, for the caller's further members.
    static func writeStateMembers(_ attachment: ForecastAttachment, into out: inout JSONWriter) -> ForecastMessage? {
        switch attachment {
        case .pending:
            out.key("state"); out.string("pending")
            return nil
        case .held(let forecast):
            out.key("state"); out.string(forecast.state.rawValue)
            if let reason = forecast.reason { out.key("reason"); out.string(reason) }
            return forecast
        }
    }
}
