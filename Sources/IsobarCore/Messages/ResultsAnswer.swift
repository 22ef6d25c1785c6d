/// `{"type":"results",...}`: the client contract's answer to `search` (the formatter's form of
/// `matches`): each matching station with its map title, in the client's presentation.
struct ResultsAnswer {
    struct Hit {
        var station: Station
        var title: String
        var match: NameMatch
    }

    var client: String
    var day: Day
    var query: String
    var presentation: ResolvedPresentation
    var snapshot: SnapshotInfo
    var hits: [Hit]

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("results")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        out.key("query"); out.string(query)
        presentation.write(to: &out)
        snapshot.writeMembers(to: &out)
        out.key("hits")
        out.arrayStart()
        for hit in hits {
            out.objectStart()
            out.key("id"); out.string(hit.station.id)
            out.key("name"); out.string(hit.station.name)
            out.key("coordinate"); hit.station.coordinate.write(to: &out)
            out.key("title"); out.string(hit.title)
            out.key("match"); out.string(hit.match.rawValue)
            out.objectEnd()
        }
        out.arrayEnd()
        out.key("count"); out.int(hits.count)
        out.objectEnd()
        out.newline()
    }
}
