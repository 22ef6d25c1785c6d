/// `{"type":"matches",...}`: the filter's answer to `search`, for the formatter (which turns it
/// into `results`): the query and the stations of the client's day whose names match it, best
/// first, each with how it matched; no hits when the filter holds no snapshot of that day.
struct Matches {
    var client: String
    var day: Day
    var snapshot: SnapshotInfo
    var presentation: Presentation
    var query: String
    var hits: [(station: Station, match: NameMatch)]

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("matches")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        snapshot.writeMembers(to: &out)
        presentation.write(to: &out)
        out.key("query"); out.string(query)
        out.key("hits")
        out.arrayStart()
        for (station, match) in hits {
            out.objectStart()
            out.key("match"); out.string(match.rawValue)
            station.writeMembers(to: &out)
            out.objectEnd()
        }
        out.arrayEnd()
        out.objectEnd()
        out.newline()
    }
}
