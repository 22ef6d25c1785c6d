/// `{"type":"detail","client":"alice","id":"K1D3"}`: the client opened a station's detail screen
/// and wants everything known about it for its day (and the forecast, when the feed has one).
/// Optional `day` (default: the client's day) and presentation keys (`field`, `units`,
/// `windUnit`, `locale`; default: the client's), as for `nearest`.
public struct DetailRequest: Sendable, Equatable {
    public var client: String
    public var id: String
    public var day: Day?
    public var presentation: Presentation

    public init(client: String, id: String, day: Day? = nil, presentation: Presentation = Presentation()) {
        self.client = client
        self.id = id
        self.day = day
        self.presentation = presentation
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        id = try object.requireName("id")
        day = try object.optionalEnum("day", Day.self)
        presentation = try Presentation(from: object)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("detail")
        writer.key("client"); writer.string(client)
        writer.key("id"); writer.string(id)
        if let day { writer.key("day"); writer.string(day.rawValue) }
        presentation.write(to: &writer)
        writer.objectEnd()
        writer.newline()
    }
}
