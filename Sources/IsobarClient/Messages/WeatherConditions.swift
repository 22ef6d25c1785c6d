/// `conditions`: the answer to `weather` (PROTOCOL.md "conditions"), the current values at a point
/// or place from the nearest station within the radius, or none (`station` nil, `details` empty).
public struct WeatherConditions: Sendable, Hashable, Codable {
    /// The station the values come from.
    public struct Station: Sendable, Hashable, Codable {
        public var id: String
        public var name: String
        public var coordinate: MapAnnotation.Coordinate
    }

    /// The current values as raw numbers (AirVisual's `nearest_city` shape): `temperature` in °F or
    /// °C (the client's units), `humidity` %, `pressure` hPa, `windSpeed` in the client's wind
    /// unit, `windDirection` degrees (from); nil where unknown.
    public struct Current: Sendable, Hashable, Codable {
        public var city: String?
        public var state: String?
        public var country: String?
        public var countryCode: String?
        public var temperature: Double?
        public var humidity: Double?
        public var pressure: Double?
        public var windSpeed: Double?
        public var windDirection: Double?
    }

    public var day: String
    /// The place's name, else the station's, else the point's coordinates.
    public var title: String
    /// The station and its distance, or "no station within N km · Today".
    public var subtitle: String
    public var point: MapAnnotation.Coordinate
    public var radiusKm: Double
    public var place: GazetteerPlace?
    public var placeDistanceKm: Double?
    public var distanceKm: Double?
    public var bearing: Double?
    public var station: Station?
    public var details: [DetailLine]
    public var icon: String?
    public var current: Current?
    public var fetchedAt: Double?
    public var ageSeconds: Double?
}
