/// `{"type":"geocode","client":"alice","query":"springfield, il","limit":5}`: places by name, or
/// `{"type":"geocode","client":"alice","id":1835848}`: one place by GeoNames id. Exactly one of
/// `query` (1-100 characters, not all space) and `id` (a positive integer). Optional `limit`
/// (1-100, default 10), `country` (ISO code or English name), `state` (a US state's code or name).
/// Answered with ``LocationsAnswer`` (`locations`), or an `error`.
public struct GeocodeRequest: Sendable, Equatable {
    public static let maxQueryLength = 100

    public var client: String
    public var query: String?
    public var id: Int?
    public var limit: Int
    public var country: String?
    public var state: String?

    public init(client: String, query: String? = nil, id: Int? = nil, limit: Int = Gazetteer.defaultLimit,
                country: String? = nil, state: String? = nil) {
        self.client = client
        self.query = query
        self.id = id
        self.limit = limit
        self.country = country
        self.state = state
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        query = try object.optionalString("query")
        id = try object.optionalInt("id")
        switch (query, id) {
        case (nil, nil): throw MessageError("a geocode needs \"query\" or \"id\"")
        case (.some, .some): throw MessageError("a geocode takes \"query\" or \"id\", not both")
        case (let query?, nil):
            guard query.contains(where: { !$0.isWhitespace }) else { throw MessageError("field \"query\" must not be empty", code: .outOfRange) }
            guard query.count <= Self.maxQueryLength else {
                throw MessageError("field \"query\" is longer than \(Self.maxQueryLength) characters", code: .outOfRange)
            }
        case (nil, let id?):
            guard id > 0 else { throw MessageError("id \(id) is not a positive GeoNames id") }
        }
        let limit = try object.optionalInt("limit") ?? Gazetteer.defaultLimit
        guard (1...Gazetteer.maxLimit).contains(limit) else { throw MessageError("limit \(limit) is outside [1, \(Gazetteer.maxLimit)]", code: .outOfRange) }
        self.limit = limit
        country = try object.optionalString("country")
        state = try object.optionalString("state")
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("geocode")
        writer.key("client"); writer.string(client)
        if let query { writer.key("query"); writer.string(query) }
        if let id { writer.key("id"); writer.int(id) }
        writer.key("limit"); writer.int(limit)
        if let country { writer.key("country"); writer.string(country) }
        if let state { writer.key("state"); writer.string(state) }
        writer.objectEnd()
        writer.newline()
    }
}
