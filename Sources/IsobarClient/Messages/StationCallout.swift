/// `callout`: the popup of the selected station (PROTOCOL.md "callout"), or its end
/// (`clear`, with `reason` `not-visible` or `cleared`).
public struct StationCallout: Sendable, Hashable, Codable {
    public var id: String?
    public var day: String?
    /// `selected`, `updated`, `not-visible` or `cleared`.
    public var reason: String
    public var clear: Bool
    public var title: String?
    public var subtitle: String?
    public var coordinate: MapAnnotation.Coordinate?
    public var details: [DetailLine]?
    public var stale: Bool?
    public var fetchedAt: Double?
    public var ageSeconds: Double?
}
