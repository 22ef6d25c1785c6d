import IsobarCore

/// What the map looks at and how it wants it shown: the region (MapKit's center and span) and
/// the toggles (day, field, units, wind unit, locale, the cluster limit). The client sends it as
/// a `viewport` (PROTOCOL.md "Client contract").
public struct MapViewport: Sendable, Hashable, Codable {
    public enum Day: String, Sendable, Hashable, Codable, CaseIterable { case today, tomorrow }
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable { case temperature, wind, precipitation }
    public enum Units: String, Sendable, Hashable, Codable, CaseIterable { case imperial, metric }
    public enum WindUnit: String, Sendable, Hashable, Codable, CaseIterable { case mph, kmh, knots }

    public var latitude: Double
    public var longitude: Double
    public var latitudeDelta: Double
    public var longitudeDelta: Double
    public var day: Day
    public var field: Field
    /// Nil: the formatter's default (imperial).
    public var units: Units?
    public var windUnit: WindUnit?
    /// `en` or `sk`; nil: the formatter's default (en).
    public var locale: String?
    /// Most annotations before clustering (nil: the filter's default, 500).
    public var limit: Int?

    public init(latitude: Double, longitude: Double, latitudeDelta: Double, longitudeDelta: Double, day: Day = .today,
                field: Field = .temperature, units: Units? = nil, windUnit: WindUnit? = nil, locale: String? = nil, limit: Int? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
        self.day = day
        self.field = field
        self.units = units
        self.windUnit = windUnit
        self.locale = locale
        self.limit = limit
    }

    /// The wire message for client `client`, carrying `version` (the last applied; nil before any).
    /// Throws for a region the contract refuses (a latitude outside [-90, 90], a span out of range)
    /// or an unknown locale, before anything is sent.
    func message(client: String, version: Int?) throws(IsobarClientError) -> Viewport {
        let region: Region
        do {
            region = try Region(center: Coordinate(latitude: latitude, longitude: longitude),
                                latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta)
        } catch {
            throw .invalidRequest("viewport: \(error)")
        }
        var presentation = Presentation(field: IsobarCore.Field(rawValue: field.rawValue))
        presentation.units = units.flatMap { IsobarCore.Units(rawValue: $0.rawValue) }
        presentation.windUnit = windUnit.flatMap { IsobarCore.WindUnit(rawValue: $0.rawValue) }
        if let locale {
            guard let known = IsobarCore.Locale(rawValue: locale) else { throw .invalidRequest("viewport: unknown locale \(locale)") }
            presentation.locale = known
        }
        var viewport = Viewport(client: client, region: region, day: day == .today ? .today : .tomorrow,
                                presentation: presentation, limit: limit ?? Viewport.defaultLimit)
        viewport.version = version
        return viewport
    }
}
