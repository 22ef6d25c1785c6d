/// `{"type":"particulars",...}`: the filter's answer to `detail` (and to a `spot` asking for
/// detail), for the formatter (which turns it into `report`): one station with its optional
/// fields and forecast, and its stale mark.
struct Particulars {
    var client: String
    var day: Day
    var snapshot: SnapshotInfo
    var presentation: Presentation
    var station: Station
    var stale: Bool
    /// The forecast on demand for the station's cell, when the filter asked for one (`--forecasts`).
    var forecast: ForecastAttachment? = nil
    /// Members written after the presentation keys: a `spot`'s point and place.
    var located: (inout JSONWriter) -> Void = { _ in }

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("particulars")
        out.key("client"); out.string(client)
        out.key("id"); out.string(station.id)
        out.key("day"); out.string(day.rawValue)
        snapshot.writeMembers(to: &out)
        presentation.write(to: &out)
        located(&out)
        out.key("station")
        out.objectStart()
        station.writeMembers(to: &out)
        station.writeDetails(to: &out)
        FilterEngine.writeForecastPoints(forecast, station: station, into: &out)
        if stale { out.key("stale"); out.bool(true) }
        out.objectEnd()
        FilterEngine.writeForecastState(forecast, into: &out)
        out.objectEnd()
        out.newline()
    }
}
