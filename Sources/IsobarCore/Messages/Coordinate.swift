/// A position in degrees (WGS 84), as MapKit's CLLocationCoordinate2D.
public struct Coordinate: Sendable, Equatable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Reads `latitude`/`longitude` members of `object`, rejecting values outside [-90, 90] and
    /// [-180, 180]. Out-of-range coordinates are rejected rather than wrapped: a station at
    /// longitude 181 is far more likely a data error than a position.
    public init(from object: JSONObject) throws(MessageError) {
        let latitude = try object.requireNumber("latitude")
        let longitude = try object.requireNumber("longitude")
        guard (-90...90).contains(latitude) else { throw MessageError("latitude \(latitude) is outside [-90, 90]", code: .outOfRange) }
        guard (-180...180).contains(longitude) else { throw MessageError("longitude \(longitude) is outside [-180, 180]", code: .outOfRange) }
        self.init(latitude: latitude, longitude: longitude)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("latitude"); writer.number(latitude)
        writer.key("longitude"); writer.number(longitude)
        writer.objectEnd()
    }
}
