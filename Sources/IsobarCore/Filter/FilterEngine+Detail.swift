/// `detail`: everything known about one station of the client's day, answered as `particulars`
/// for the formatter (which turns it into `report`): the station with its optional fields and
/// forecast, and its stale mark. Like `nearest`, it needs no viewport and changes no state.
extension FilterEngine {
    func detail(_ request: DetailRequest, now: Double, into out: inout JSONWriter) throws(MessageError) {
        let (day, presentation) = context(client: request.client, day: request.day, presentation: request.presentation, now: now)
        guard let snapshot = snapshot(for: day) else {
            throw MessageError("no \(day.rawValue) snapshot yet; ask for the detail of \"\(request.id)\" again once data arrived")
        }
        guard let position = snapshot.position(of: request.id) else {
            throw MessageError("unknown station \"\(request.id)\" in the \(day.rawValue) snapshot")
        }
        let forecast = forecastAttachment(station: snapshot.stations[position], point: snapshot.stations[position].coordinate,
                                          client: request.client, again: .detail(request), into: &out)
        writeParticulars(client: request.client, day: day, snapshot: snapshot, position: position, presentation: presentation,
                         forecast: forecast, into: &out) { _ in }
    }

    /// A `particulars` line for the station at `position`; `extra` writes members after the
    /// presentation keys (a `spot`'s point and place).
    func writeParticulars(client: String, day: Day, snapshot: StationSnapshot, position: Int, presentation: Presentation,
                          forecast: ForecastAttachment? = nil, into out: inout JSONWriter, extra: (inout JSONWriter) -> Void) {
        let station = snapshot.stations[position]
        out.objectStart()
        out.key("type"); out.string("particulars")
        out.key("client"); out.string(client)
        out.key("id"); out.string(station.id)
        out.key("day"); out.string(day.rawValue)
        writeFindSnapshotInfo(snapshot, into: &out)
        presentation.write(to: &out)
        extra(&out)
        out.key("station")
        out.objectStart()
        station.writeMembers(to: &out)
        station.writeDetails(to: &out)
        Self.writeForecastPoints(forecast, station: station, into: &out)
        if isStale(snapshot, position: position, threshold: staleThreshold()) { out.key("stale"); out.bool(true) }
        out.objectEnd()
        Self.writeForecastState(forecast, into: &out)
        out.objectEnd()
        out.newline()
    }
}
