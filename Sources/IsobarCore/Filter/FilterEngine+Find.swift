/// `nearest` and `search`: answered from the snapshot the client looks at, in its presentation,
/// as `closest` and `matches` for the formatter (which turns them into `place` and `results`).
///
/// A client need not have sent a viewport: then the day is `today` (or the request's) and the
/// presentation the formatter's defaults (or the request's), so `fetch | filter | format` answers
/// a bare request. Neither message changes the client's state; both count as a sign of life.
extension FilterEngine {
    func nearest(_ request: NearestRequest, now: Double, into out: inout JSONWriter) {
        let (day, presentation) = context(client: request.client, day: request.day, presentation: request.presentation, now: now)
        let snapshot = snapshot(for: day)
        let hit = snapshot?.nearestStation(to: request.point).map { station, hit in
            Closest.Hit(station: station, distanceKm: (hit.distanceKm * 1000).rounded() / 1000,
                        bearing: Self.roundedBearing(from: request.point, to: station.coordinate))
        }
        Closest(client: request.client, day: day, snapshot: snapshot?.info ?? .none, presentation: presentation,
                point: request.point, hit: hit).write(to: &out)
    }

    func search(_ request: SearchRequest, now: Double, into out: inout JSONWriter) {
        let (day, presentation) = context(client: request.client, day: request.day, presentation: request.presentation, now: now)
        let snapshot = snapshot(for: day)
        Matches(client: request.client, day: day, snapshot: snapshot?.info ?? .none, presentation: presentation,
                query: request.query, hits: snapshot?.search(request.query, limit: request.limit) ?? []).write(to: &out)
    }

    /// The day and presentation a request is answered in: what it says, else what the client's
    /// viewport says, else the defaults (today; the formatter's own).
    func context(client name: String, day: Day?, presentation: Presentation, now: Double) -> (Day, Presentation) {
        let client = clients[name]
        client?.lastSeen = max(client?.lastSeen ?? now, now)
        let base = client?.viewport.presentation ?? Presentation()
        let merged = Presentation(field: presentation.field ?? base.field, units: presentation.units ?? base.units,
                                  windUnit: presentation.windUnit ?? (presentation.units != nil ? nil : base.windUnit),
                                  locale: presentation.locale ?? base.locale)
        return (day ?? client?.viewport.day ?? .today, merged)
    }
}
