/// A populated place as the gazetteer answers it: what a client shows for a search hit, a dropped
/// pin or a city list entry.
public struct Place: Sendable, Equatable {
    /// The GeoNames id (`geonameid`), stable across GeoNames releases.
    public var id: Int
    public var name: String
    /// The admin-1 (state, province) name, when the data has one (the default data: US states only).
    public var admin1: String?
    /// The ISO 3166-1 alpha-2 country code ("" for the few places GeoNames gives none).
    public var countryCode: String
    /// The country's English name, when the country table has the code.
    public var country: String?
    public var coordinate: Coordinate
    public var population: Int64
    /// The IANA time zone ("Asia/Seoul"), when the row has one.
    public var timeZone: String?

    public init(id: Int, name: String, admin1: String?, countryCode: String, country: String?,
                coordinate: Coordinate, population: Int64, timeZone: String?) {
        self.id = id
        self.name = name
        self.admin1 = admin1
        self.countryCode = countryCode
        self.country = country
        self.coordinate = coordinate
        self.population = population
        self.timeZone = timeZone
    }

    /// `{"id":1835848,"name":"Seoul","admin1":null,"countryCode":"KR","country":"South Korea",
    /// "latitude":37.566,"longitude":126.9784,"population":10349312,"timeZone":"Asia/Seoul"}`.
    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writeMembers(to: &writer)
        writer.objectEnd()
    }

    /// The members of ``write(to:)`` without the braces (a search hit puts `match` before them).
    public func writeMembers(to writer: inout JSONWriter) {
        writer.key("id"); writer.int(id)
        writer.key("name"); writer.string(name)
        writer.key("admin1"); if let admin1 { writer.string(admin1) } else { writer.null() }
        writer.key("countryCode"); writer.string(countryCode)
        writer.key("country"); if let country { writer.string(country) } else { writer.null() }
        writer.key("latitude"); writer.number(coordinate.latitude)
        writer.key("longitude"); writer.number(coordinate.longitude)
        writer.key("population"); writer.int(Int(population))
        writer.key("timeZone"); if let timeZone { writer.string(timeZone) } else { writer.null() }
    }
}
