/// `{"type":"weather","client":"alice","latitude":37.57,"longitude":126.98}` or
/// `{"type":"weather","client":"alice","id":1835848,"detail":true}`: the weather at a point the
/// user tapped, or at a place (a city list entry), sent to the places stage. Exactly one of a
/// coordinate and a place `id`. Optional `radiusKm` in (0, 20016], default 50: how far the nearest
/// station may be; `detail` (default false) asks for the station's detail screen under the place's
/// name instead of the current values; `day` and presentation keys pass on to the filter as in
/// `nearest`. The places stage answers nothing itself: it names the point and passes a ``Spot``
/// on to the filter, which knows the stations.
public struct WeatherRequest: Sendable, Equatable {
    /// The default station radius, in kilometres.
    public static let defaultRadiusKm = 50.0

    public enum Target: Sendable, Equatable {
        case point(Coordinate)
        case place(Int)
    }

    public var client: String
    public var target: Target
    public var radiusKm: Double
    public var detail: Bool
    public var day: Day?
    public var presentation: Presentation

    public init(client: String, target: Target, radiusKm: Double = Self.defaultRadiusKm, detail: Bool = false,
                day: Day? = nil, presentation: Presentation = Presentation()) {
        self.client = client
        self.target = target
        self.radiusKm = radiusKm
        self.detail = detail
        self.day = day
        self.presentation = presentation
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        let id = try object.optionalInt("id")
        let hasPoint = object.field("latitude") != nil || object.field("longitude") != nil
        switch (id, hasPoint) {
        case (nil, false): throw MessageError("a weather request needs \"latitude\" and \"longitude\", or a place \"id\"")
        case (.some, true): throw MessageError("a weather request takes a coordinate or a place \"id\", not both")
        case (let id?, false):
            guard id > 0 else { throw MessageError("id \(id) is not a positive GeoNames id") }
            target = .place(id)
        case (nil, true):
            target = .point(try Coordinate(from: object))
        }
        radiusKm = try Self.radius(object)
        detail = try object.optionalBool("detail") ?? false
        day = try object.optionalEnum("day", Day.self)
        presentation = try Presentation(from: object)
    }

    /// The `radiusKm` of a `weather` or `spot`: (0, 20016], default 50.
    static func radius(_ object: JSONObject) throws(MessageError) -> Double {
        let radius = try object.optionalNumber("radiusKm") ?? defaultRadiusKm
        guard radius > 0, radius <= Gazetteer.maxRadiusKm else {
            throw MessageError("radiusKm \(radius) is outside (0, \(Int(Gazetteer.maxRadiusKm))]", code: .outOfRange)
        }
        return radius
    }
}

extension WeatherRequest {
    /// The request as a client sends it (the app's library): its target, radius, `detail` when
    /// true and `day` when set. The presentation keys are left out: the filter takes them from
    /// the client's viewport.
    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("weather")
        writer.key("client"); writer.string(client)
        switch target {
        case .point(let point):
            writer.key("latitude"); writer.number(point.latitude)
            writer.key("longitude"); writer.number(point.longitude)
        case .place(let id):
            writer.key("id"); writer.int(id)
        }
        writer.key("radiusKm"); writer.number(radiusKm)
        if detail { writer.key("detail"); writer.bool(true) }
        if let day { writer.key("day"); writer.string(day.rawValue) }
        writer.objectEnd()
        writer.newline()
    }
}
