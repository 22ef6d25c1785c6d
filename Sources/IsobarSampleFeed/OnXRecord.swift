import IsobarCore
import IsobarNet

/// One record of an onX feed exactly as the feed carries it, quirks included (a 105 % chance of
/// precipitation stays 105): the sample feed must serve what the real endpoints serve, so unlike
/// `OnXFeed.parse` nothing here is clamped, checked or converted.
public struct OnXRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    public var longitude: Double
    public var latitude: Double
    public var temperature: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var chanceOfPrecipitation: Double?

    public init(id: String, name: String, longitude: Double, latitude: Double, temperature: Double?,
                windSpeed: Double?, windDirection: Double?, chanceOfPrecipitation: Double?) {
        self.id = id
        self.name = name
        self.longitude = longitude
        self.latitude = latitude
        self.temperature = temperature
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.chanceOfPrecipitation = chanceOfPrecipitation
    }

    /// Reads a fixture: a JSON array of onX records. Fails on anything else, since a broken fixture
    /// is a setup mistake to report at start, not data to serve.
    public static func parseArray(_ bytes: [UInt8]) throws(MessageError) -> [OnXRecord] {
        let array: JSONArray
        do {
            array = try JSONArray(storage: bytes)
        } catch {
            throw MessageError("not a JSON array: \(error)")
        }
        var records: [OnXRecord] = []
        records.reserveCapacity(array.elements.count)
        for (index, element) in array.elements.enumerated() {
            guard element.kind == .object else { throw MessageError("element \(index) is \(element.kind), not an object") }
            let object = array.object(at: element.range)
            do {
                records.append(OnXRecord(
                    id: try object.requireString("id"),
                    name: try object.optionalString("name") ?? "",
                    longitude: try object.requireNumber("longitude"),
                    latitude: try object.requireNumber("latitude"),
                    temperature: try object.optionalNumber("temperature"),
                    windSpeed: try object.optionalNumber("wind_speed"),
                    windDirection: try object.optionalNumber("wind_direction"),
                    chanceOfPrecipitation: try object.optionalNumber("chance_of_precipitation")))
            } catch {
                throw MessageError("record \(index): \(error)")
            }
        }
        return records
    }

    /// Writes the record with the feed's eight keys in the feed's order; unknown values as null.
    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("id"); writer.string(id)
        writer.key("name"); writer.string(name)
        writer.key("longitude"); writer.number(longitude)
        writer.key("latitude"); writer.number(latitude)
        writer.key("temperature"); writer.number(temperature)
        writer.key("wind_speed"); writer.number(windSpeed)
        writer.key("wind_direction"); writer.number(windDirection)
        writer.key("chance_of_precipitation"); writer.number(chanceOfPrecipitation)
        writer.objectEnd()
    }

    /// A whole feed body: a bare JSON array on one line.
    public static func render(_ records: [OnXRecord]) -> [UInt8] {
        var writer = JSONWriter(capacity: records.count * 200 + 4)
        writer.arrayStart()
        for record in records { record.write(to: &writer) }
        writer.arrayEnd()
        writer.newline()
        return writer.bytes
    }
}
