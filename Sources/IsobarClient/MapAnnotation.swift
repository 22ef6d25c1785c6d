import IsobarCore

/// One annotation as a map shows it, ready for MapKit: an app makes an `MKAnnotation` from it in
/// a few lines (docs/client.md) without knowing the wire format. A station, or a cluster of
/// stations (`isCluster`, `count`).
public struct MapAnnotation: Sendable, Hashable, Codable, Identifiable {
    /// A point in degrees (`CLLocationCoordinate2D(latitude:longitude:)` takes these two).
    public struct Coordinate: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// The station's id, or `cluster:<level>:<row>:<column>` for a cluster; stable across updates.
    public var id: String
    public var coordinate: Coordinate
    /// The text on the map (`"46°"`, `"7 mph W →"`, `""` when the value is unknown).
    public var title: String
    /// The station's name, or `"12 stations"` for a cluster.
    public var subtitle: String
    /// The wind glyph's rotation in clockwise degrees from north (where the wind blows to); nil
    /// outside the wind field or when the direction is unknown.
    public var rotation: Double?
    public var isCluster: Bool
    /// How many stations it stands for (1 for a station).
    public var count: Int
    /// The station's data is older than the filter's `--stale-after`: draw it dimmed.
    public var isStale: Bool

    public init(id: String, coordinate: Coordinate, title: String, subtitle: String = "", rotation: Double? = nil,
                isCluster: Bool = false, count: Int = 1, isStale: Bool = false) {
        self.id = id
        self.coordinate = coordinate
        self.title = title
        self.subtitle = subtitle
        self.rotation = rotation
        self.isCluster = isCluster
        self.count = count
        self.isStale = isStale
    }

    /// The item an `AnnotationSet` made with `keepsDetail` holds.
    init(_ item: AnnotationSet.Item) {
        self.init(id: item.id, coordinate: Coordinate(latitude: item.coordinate.latitude, longitude: item.coordinate.longitude),
                  title: item.title, subtitle: item.subtitle, rotation: item.rotation, isCluster: item.cluster,
                  count: item.count, isStale: item.stale)
    }
}
