/// `{"type":"vicinity","client":"alice","latitude":37.57,"longitude":126.98,"radiusKm":100,
/// "place":{...},"distanceKm":0.4,"bearing":212.5}`: the answer to a ``ReverseRequest``. With no
/// place within `radiusKm`, `place`, `distanceKm` and `bearing` are `null` ("no place nearby").
public struct VicinityAnswer: Sendable, Equatable {
    public var client: String
    public var point: Coordinate
    public var radiusKm: Double
    public var nearby: Gazetteer.Nearby?

    public init(client: String, point: Coordinate, radiusKm: Double, nearby: Gazetteer.Nearby?) {
        self.client = client
        self.point = point
        self.radiusKm = radiusKm
        self.nearby = nearby
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("vicinity")
        writer.key("client"); writer.string(client)
        writer.key("latitude"); writer.number(point.latitude)
        writer.key("longitude"); writer.number(point.longitude)
        writer.key("radiusKm"); writer.number(radiusKm)
        writer.key("place")
        if let nearby { nearby.place.write(to: &writer) } else { writer.null() }
        writer.key("distanceKm"); writer.number(nearby?.distanceKm)
        writer.key("bearing"); writer.number(nearby?.bearing)
        writer.objectEnd()
        writer.newline()
    }
}
