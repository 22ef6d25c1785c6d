/// A populated place of the gazetteer (GeoNames, CC BY 4.0: attribute "GeoNames" where shown).
public struct GazetteerPlace: Sendable, Hashable, Codable, Identifiable {
    /// `exact`, `prefix` or `word` in a `locations` answer; nil in `vicinity`.
    public var match: String?
    /// The GeoNames id.
    public var id: Int
    public var name: String
    public var admin1: String?
    public var countryCode: String
    public var country: String?
    public var latitude: Double
    public var longitude: Double
    public var population: Int
    public var timeZone: String?
}

/// `locations`: the answer to `geocode`, places best first (empty when nothing matches).
public struct PlaceResults: Sendable, Hashable, Codable {
    public var query: String?
    public var id: Int?
    public var results: [GazetteerPlace]
}

/// `vicinity`: the answer to `reverse`, the nearest place within the radius, or none.
public struct Vicinity: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var radiusKm: Double
    public var place: GazetteerPlace?
    public var distanceKm: Double?
    public var bearing: Double?
}
