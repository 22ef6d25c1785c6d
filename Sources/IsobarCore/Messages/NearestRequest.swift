/// `{"type":"nearest","client":"alice","latitude":48.7,"longitude":21.25}`: the client tapped a
/// point and wants the weather at the nearest station. Optional `day` (default: the client's day)
/// and presentation keys (`field`, `units`, `windUnit`, `locale`; default: the client's).
public struct NearestRequest: Sendable, Equatable {
    public var client: String
    public var point: Coordinate
    public var day: Day?
    public var presentation: Presentation

    public init(client: String, point: Coordinate, day: Day? = nil, presentation: Presentation = Presentation()) {
        self.client = client
        self.point = point
        self.day = day
        self.presentation = presentation
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        point = try Coordinate(from: object)
        day = try object.optionalEnum("day", Day.self)
        presentation = try Presentation(from: object)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("nearest")
        writer.key("client"); writer.string(client)
        writer.key("latitude"); writer.number(point.latitude)
        writer.key("longitude"); writer.number(point.longitude)
        if let day { writer.key("day"); writer.string(day.rawValue) }
        presentation.write(to: &writer)
        writer.objectEnd()
        writer.newline()
    }
}
