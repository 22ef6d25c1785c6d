/// `{"type":"locations","client":"alice","query":"seoul","results":[{"match":"exact","id":1835848,
/// "name":"Seoul",...}]}`: the answer to a ``GeocodeRequest``, best first (echoing its `query`, or
/// its `id` for a lookup). Each result is a ``Place`` with the kind of match first.
public struct LocationsAnswer: Sendable, Equatable {
    public var client: String
    public var query: String?
    public var id: Int?
    public var results: [Gazetteer.Hit]

    public init(client: String, query: String?, id: Int?, results: [Gazetteer.Hit]) {
        self.client = client
        self.query = query
        self.id = id
        self.results = results
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("locations")
        writer.key("client"); writer.string(client)
        if let query { writer.key("query"); writer.string(query) }
        if let id { writer.key("id"); writer.int(id) }
        writer.key("results")
        writer.arrayStart()
        for hit in results { hit.write(to: &writer) }
        writer.arrayEnd()
        writer.objectEnd()
        writer.newline()
    }
}

extension Gazetteer.Hit {
    /// The place's object with `"match"` as its first member.
    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("match"); writer.string(match.rawValue)
        place.writeMembers(to: &writer)
        writer.objectEnd()
    }
}
