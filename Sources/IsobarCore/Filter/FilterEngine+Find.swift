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
        out.objectStart()
        out.key("type"); out.string("closest")
        out.key("client"); out.string(request.client)
        out.key("day"); out.string(day.rawValue)
        writeFindSnapshotInfo(snapshot, into: &out)
        presentation.write(to: &out)
        out.key("point"); request.point.write(to: &out)
        if let snapshot, let (station, hit) = snapshot.nearestStation(to: request.point) {
            out.key("id"); out.string(station.id)
            out.key("distanceKm"); out.number((hit.distanceKm * 1000).rounded() / 1000)
            var bearing = (GreatCircle.bearing(from: request.point, to: station.coordinate) * 10).rounded() / 10
            if bearing >= 360 { bearing = 0 }
            out.key("bearing"); out.number(bearing)
            out.key("station")
            out.objectStart()
            station.writeMembers(to: &out)
            out.objectEnd()
        } else {
            out.key("id"); out.null()
            out.key("station"); out.null()
        }
        out.objectEnd()
        out.newline()
    }

    func search(_ request: SearchRequest, now: Double, into out: inout JSONWriter) {
        let (day, presentation) = context(client: request.client, day: request.day, presentation: request.presentation, now: now)
        let snapshot = snapshot(for: day)
        out.objectStart()
        out.key("type"); out.string("matches")
        out.key("client"); out.string(request.client)
        out.key("day"); out.string(day.rawValue)
        writeFindSnapshotInfo(snapshot, into: &out)
        presentation.write(to: &out)
        out.key("query"); out.string(request.query)
        out.key("hits")
        out.arrayStart()
        for (station, match) in snapshot?.search(request.query, limit: request.limit) ?? [] {
            out.objectStart()
            out.key("match"); out.string(match.rawValue)
            station.writeMembers(to: &out)
            out.objectEnd()
        }
        out.arrayEnd()
        out.objectEnd()
        out.newline()
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

    func writeFindSnapshotInfo(_ snapshot: StationSnapshot?, into out: inout JSONWriter) {
        out.key("snapshot"); out.string(snapshot?.id)
        out.key("source"); out.string(snapshot?.source.rawValue)
        out.key("fetchedAt"); out.number(snapshot?.fetchedAt)
        out.key("ageSeconds"); out.number(snapshot?.ageSeconds)
    }
}
