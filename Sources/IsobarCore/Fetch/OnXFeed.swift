/// Parser for the onX weather-station feed: a bare JSON array of records with the keys `id`,
/// `name`, `latitude`, `longitude`, `temperature` (°F), `wind_speed` (mph), `wind_direction`
/// (degrees from) and `chance_of_precipitation` (percent).
///
/// Null stays unknown (never 0). A record with a missing or invalid id or coordinates is rejected
/// with an error and the rest kept; out-of-range values are clamped (precipitation) or dropped to
/// unknown (negative wind, direction outside 0...360) with a data-quality warning. A body that is
/// not an array of records, or that has no valid record, is refused whole so that a broken feed
/// never replaces good data.
public enum OnXFeed {
    public struct Parsed: Sendable {
        public var stations: [Station] = []
        public var warnings: [WarningMessage] = []
        public var errors: [ErrorMessage] = []
    }

    public static func parse(_ body: [UInt8], stage: String = "fetch") throws(MessageError) -> Parsed {
        let array: JSONArray
        do {
            array = try JSONArray(storage: body)
        } catch {
            throw MessageError("feed body is not a JSON array of station records: \(error)")
        }
        guard !array.elements.isEmpty else { throw MessageError("feed body is an empty array; keeping the previous snapshot") }
        var parsed = Parsed()
        var seen = Set<String>()
        for (index, element) in array.elements.enumerated() {
            let excerpt = String(decoding: array.storage[element.range].prefix(80), as: UTF8.self)
            guard element.kind == .object else {
                parsed.errors.append(ErrorMessage(stage: stage, message: "record \(index) is \(element.kind), not an object", excerpt: excerpt))
                continue
            }
            do {
                var warnings: [String] = []
                let station = try record(array.object(at: element.range), warnings: &warnings)
                guard seen.insert(station.id).inserted else {
                    throw MessageError("duplicate station id \"\(station.id)\"; kept the first")
                }
                parsed.stations.append(station)
                parsed.warnings += warnings.map { WarningMessage(stage: stage, id: station.id, message: $0) }
            } catch {
                parsed.errors.append(ErrorMessage(stage: stage, message: "record \(index) rejected: \(error)", excerpt: excerpt))
            }
        }
        guard !parsed.stations.isEmpty else {
            throw MessageError("feed has no valid station record (\(parsed.errors.count) rejected); keeping the previous snapshot")
        }
        return parsed
    }

    static func record(_ object: JSONObject, warnings: inout [String]) throws(MessageError) -> Station {
        let id = try object.requireName("id")
        let name = try object.optionalString("name") ?? ""
        let coordinate = try Coordinate(from: object)
        let temperature = try object.optionalNumber("temperature")
        var windSpeed = try object.optionalNumber("wind_speed")
        var windDirection = try object.optionalNumber("wind_direction")
        var precipitation = try object.optionalNumber("chance_of_precipitation")
        if let speed = windSpeed, speed < 0 {
            warnings.append("wind_speed \(speed) is negative; treated as unknown")
            windSpeed = nil
        }
        if let direction = windDirection, !(0...360).contains(direction) {
            warnings.append("wind_direction \(direction) is outside 0...360; treated as unknown")
            windDirection = nil
        }
        if let chance = precipitation, !(0...100).contains(chance) {
            let clamped = min(100, max(0, chance))
            warnings.append("chance_of_precipitation \(format(chance)) is outside 0...100; clamped to \(format(clamped))")
            precipitation = clamped
        }
        return Station(id: id, name: name, coordinate: coordinate, temperature: temperature,
                       windSpeed: windSpeed, windDirection: windDirection, precipitation: precipitation)
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The snapshot id: a hash of the day and every station's content, so the same data always
    /// gets the same id (a replay from the store and a re-fetch are recognised as identical).
    public static func snapshotID(day: Day, stations: [Station]) -> String {
        var hash = FNV1a()
        hash.add(day.rawValue)
        for station in stations { hash.add(station.fingerprint) }
        return day.rawValue + "-" + hash.hex
    }

    /// Writes a whole snapshot: every station (seq 0..<n) then the end marker.
    public static func writeSnapshot(day: Day, stations: [Station], source: SnapshotEnd.Source, fetchedAt: Double,
                                     ageSeconds: Double = 0, id: String? = nil, into out: inout JSONWriter) {
        let snapshot = id ?? snapshotID(day: day, stations: stations)
        for (seq, station) in stations.enumerated() {
            StationMessage(day: day, snapshot: snapshot, seq: seq, station: station).write(to: &out)
        }
        SnapshotEnd(day: day, snapshot: snapshot, count: stations.count, source: source,
                    fetchedAt: fetchedAt, ageSeconds: ageSeconds).write(to: &out)
    }
}
