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
                          forecast: ForecastAttachment? = nil, into out: inout JSONWriter, extra: @escaping (inout JSONWriter) -> Void) {
        Particulars(client: client, day: day, snapshot: snapshot.info, presentation: presentation, station: snapshot.stations[position],
                    stale: isStale(snapshot, position: position, threshold: staleThreshold()), forecast: forecast, located: extra).write(to: &out)
    }
}
