/// `{"type":"search","client":"alice","query":"kosice","limit":20}`: stations whose name (or id)
/// matches `query` (see ``NameIndex``). Optional `limit` (1…100, default 20), `day` and
/// presentation keys as for ``NearestRequest``.
public struct SearchRequest: Sendable, Equatable {
    public static let defaultLimit = 20
    public static let maxLimit = 100
    /// Longest accepted query, in characters.
    public static let maxQueryLength = 100

    public var client: String
    public var query: String
    public var limit: Int
    public var day: Day?
    public var presentation: Presentation

    public init(client: String, query: String, limit: Int = SearchRequest.defaultLimit, day: Day? = nil,
                presentation: Presentation = Presentation()) {
        self.client = client
        self.query = query
        self.limit = limit
        self.day = day
        self.presentation = presentation
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        query = try object.requireString("query")
        guard query.contains(where: { !$0.isWhitespace }) else { throw MessageError("field \"query\" must not be empty", code: .outOfRange) }
        guard query.count <= Self.maxQueryLength else {
            throw MessageError("field \"query\" is longer than \(Self.maxQueryLength) characters", code: .outOfRange)
        }
        let limit = try object.optionalInt("limit") ?? Self.defaultLimit
        guard (1...Self.maxLimit).contains(limit) else { throw MessageError("limit \(limit) is outside [1, \(Self.maxLimit)]", code: .outOfRange) }
        self.limit = limit
        day = try object.optionalEnum("day", Day.self)
        presentation = try Presentation(from: object)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("search")
        writer.key("client"); writer.string(client)
        writer.key("query"); writer.string(query)
        writer.key("limit"); writer.int(limit)
        if let day { writer.key("day"); writer.string(day.rawValue) }
        presentation.write(to: &writer)
        writer.objectEnd()
        writer.newline()
    }
}
