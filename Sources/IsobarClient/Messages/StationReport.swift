/// `report`: the answer to `detail`, everything about one station: the callout's lines, the
/// icon, and the forecast (hourly and daily points; empty for a feed without one).
public struct StationReport: Sendable, Hashable, Codable {
    /// One forecast point.
    public struct Point: Sendable, Hashable, Codable {
        /// Seconds since 1970.
        public var time: Double
        public var label: String
        public var summary: String?
        public var icon: String?
        public var details: [DetailLine]
    }

    public var id: String
    public var day: String
    public var title: String
    public var subtitle: String
    public var coordinate: MapAnnotation.Coordinate
    public var details: [DetailLine]
    public var icon: String?
    public var stale: Bool?
    public var hourly: [Point]
    public var daily: [Point]
    public var fetchedAt: Double?
    public var ageSeconds: Double?
}
