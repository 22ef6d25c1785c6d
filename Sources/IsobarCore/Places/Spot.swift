/// `{"type":"spot","client":"alice","latitude":37.566,"longitude":126.9784,"radiusKm":50,
/// "place":{...},"placeDistanceKm":0}`: a `weather` request with its place resolved, from the
/// places stage to the filter (topic `spot/<pp>/<client>`, routed to the client's shard like
/// `nearest`). The point is the tapped coordinate, or the place's own for a request by place id;
/// `place` is the named place (nil: none within the reverse radius, or no gazetteer) and
/// `placeDistanceKm` how far it is from the point. Any program may send one straight to the
/// filter (with or without `place`): the filter needs nothing else from the places stage.
public struct Spot: Sendable, Equatable {
    public var client: String
    public var point: Coordinate
    public var radiusKm: Double
    public var place: Place?
    public var placeDistanceKm: Double?
    public var detail: Bool
    public var day: Day?
    public var presentation: Presentation

    public init(client: String, point: Coordinate, radiusKm: Double = WeatherRequest.defaultRadiusKm,
                place: Place? = nil, placeDistanceKm: Double? = nil, detail: Bool = false,
                day: Day? = nil, presentation: Presentation = Presentation()) {
        self.client = client
        self.point = point
        self.radiusKm = radiusKm
        self.place = place
        self.placeDistanceKm = placeDistanceKm
        self.detail = detail
        self.day = day
        self.presentation = presentation
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        point = try Coordinate(from: object)
        radiusKm = try WeatherRequest.radius(object)
        place = try Self.place(object)
        placeDistanceKm = try object.optionalNumber("placeDistanceKm")
        if let distance = placeDistanceKm, distance < 0 || place == nil {
            throw MessageError("field \"placeDistanceKm\" must be a non-negative number beside a place", code: .outOfRange)
        }
        detail = try object.optionalBool("detail") ?? false
        day = try object.optionalEnum("day", Day.self)
        presentation = try Presentation(from: object)
    }

    /// The optional `place` member of a message (null or missing: nil).
    static func place(_ object: JSONObject) throws(MessageError) -> Place? {
        guard let field = object.field("place"), field.kind != .null else { return nil }
        guard let placeObject = object.object(field) else { throw MessageError("field \"place\" must be an object or null") }
        return try Place(from: placeObject)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("spot")
        writer.key("client"); writer.string(client)
        writer.key("latitude"); writer.number(point.latitude)
        writer.key("longitude"); writer.number(point.longitude)
        writer.key("radiusKm"); writer.number(radiusKm)
        writePlace(to: &writer)
        if detail { writer.key("detail"); writer.bool(true) }
        if let day { writer.key("day"); writer.string(day.rawValue) }
        presentation.write(to: &writer)
        writer.objectEnd()
        writer.newline()
    }

    /// `"place":{...}|null,"placeDistanceKm":N|null`, as `spot`, `ambient` and an enriched
    /// `particulars` carry them.
    public func writePlace(to writer: inout JSONWriter) {
        writer.key("place")
        if let place { place.write(to: &writer) } else { writer.null() }
        writer.key("placeDistanceKm"); writer.number(place == nil ? nil : placeDistanceKm)
    }
}
