/// `{"type":"reverse","client":"alice","latitude":37.57,"longitude":126.98,"radiusKm":25}`: the
/// nearest populated place to a point (a long press, a dropped pin). Optional `radiusKm` in
/// (0, 20016], default 100: farther than that the answer names no place. Answered with
/// ``VicinityAnswer`` (`vicinity`), or an `error`.
public struct ReverseRequest: Sendable, Equatable {
    public var client: String
    public var point: Coordinate
    public var radiusKm: Double

    public init(client: String, point: Coordinate, radiusKm: Double = Gazetteer.defaultRadiusKm) {
        self.client = client
        self.point = point
        self.radiusKm = radiusKm
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        point = try Coordinate(from: object)
        let radius = try object.optionalNumber("radiusKm") ?? Gazetteer.defaultRadiusKm
        guard radius > 0, radius <= Gazetteer.maxRadiusKm else {
            throw MessageError("radiusKm \(radius) is outside (0, \(Int(Gazetteer.maxRadiusKm))]", code: .outOfRange)
        }
        radiusKm = radius
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("reverse")
        writer.key("client"); writer.string(client)
        writer.key("latitude"); writer.number(point.latitude)
        writer.key("longitude"); writer.number(point.longitude)
        writer.key("radiusKm"); writer.number(radiusKm)
        writer.objectEnd()
        writer.newline()
    }
}
