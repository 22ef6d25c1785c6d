/// `place`: the answer to `nearest`, the station nearest a point with its distance and bearing
/// and the callout's text; `id` nil when the filter holds no snapshot of the day.
public struct NearestPlace: Sendable, Hashable, Codable {
    public var day: String?
    public var point: MapAnnotation.Coordinate
    public var id: String?
    public var distanceKm: Double?
    public var bearing: Double?
    public var title: String?
    public var subtitle: String?
    public var coordinate: MapAnnotation.Coordinate?
    public var details: [DetailLine]?
    public var snapshot: String?
    public var fetchedAt: Double?
    public var ageSeconds: Double?
}
