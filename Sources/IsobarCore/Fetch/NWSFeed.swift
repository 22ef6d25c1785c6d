/// Parser for National Weather Service observations (api.weather.gov, GeoJSON):
/// `GET /stations/{id}/observations/latest` answers one `Feature`; `/stations/{id}/observations`
/// a `FeatureCollection` (newest first); a JSON array of Features holds one answer per station
/// polled. The service requires a `User-Agent` (fetch always sends one). A stations list
/// (`/stations?state=CO`) is read by `NWSStationList`: the fetcher then asks each listed station's
/// latest observation.
///
/// Each Feature has `geometry` (a Point `[longitude, latitude]`) and `properties`: `stationId`
/// (else the last segment of the `station` URL), `stationName`, `timestamp` (ISO 8601 with an
/// offset, `2026-11-26T07:53:00+00:00`), `textDescription`, and quality-controlled values as
/// `{"value": …, "unitCode": "wmoUnit:degC", "qualityControl": "V"}` (null value = unknown). Units
/// are read per value (`wmoUnit:` or the older `unit:` prefix): `degC`/`degF`, `km_h-1`/`m_s-1`/
/// `kn`, `Pa`/`hPa`, `m`/`km`, `percent`, `degree_(angle)`; any other unit rejects the record.
/// Mapped: temperature, dewpoint, relativeHumidity, windSpeed, windDirection, windGust, heatIndex
/// else windChill as feels-like, seaLevelPressure else barometricPressure, visibility,
/// textDescription as summary, timestamp as observedAt. A second observation of a station already
/// read (an older one, in a collection) is rejected as a duplicate.
public enum NWSFeed {
    static let expected = "an api.weather.gov observation (a GeoJSON Feature with \"properties\", a FeatureCollection, or an array of Features)"

    static func isResponse(_ object: JSONObject) -> Bool {
        (object.has("properties", "geometry")) || object.has("features")
    }

    public static func parse(_ body: [UInt8], stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        let answers = try FeedBody(body, expected: expected)
        try answers.require(expected, isResponse)
        // A stations list has no weather: its observations are asked station by station (the fetcher
        // does so for an http(s) source), never read as stations without values.
        if !answers.isArray, let only = answers.elements.first?.object, NWSStationList.isList(only) {
            throw FeedBody.refusal(expected, "it is a stations list (/stations), which --format nws reads only from an http(s) URL, asking each station's observations/latest on the same service")
        }
        // A FeatureCollection is read as the array of its features.
        if !answers.isArray, let only = answers.elements.first?.object, let features = only.field("features") {
            guard features.kind == .array else { throw FeedBody.refusal(expected, "\"features\" is \(features.kind), not an array") }
            let inner = try FeedBody(Array(only.storage[features.valueRange]), expected: expected)
            return try inner.collect(stage: stage, record)
        }
        return try answers.collect(stage: stage, record)
    }

    /// Each observation Feature of `body` (an array, a collection or one Feature) by its station
    /// id, as its own bytes: what `/stations/{id}/observations/latest` answers for that station
    /// (the sample feed serves the fixture this way). Features without an id are left out.
    public static func observationsByStation(_ body: [UInt8]) -> [String: [UInt8]] {
        guard let answers = try? FeedBody(body, expected: expected) else { return [:] }
        var features = answers.elements.compactMap(\.object)
        if !answers.isArray, let only = features.first, let list = only.field("features") {
            features = only.arrayElements(list).filter { $0.kind == .object }.map { only.object(at: $0.range) }
        }
        var found: [String: [UInt8]] = [:]
        for feature in features {
            guard let properties = try? feature.optionalObject("properties"), let id = try? properties.optionalString("stationId"),
                  !id.isEmpty, found[id] == nil else { continue }
            found[id] = Array(feature.rawBytes)
        }
        return found
    }

    /// One quantity's value in the model's unit, or nil when null or absent.
    struct Quantities {
        let properties: JSONObject

        func value(_ key: StaticString, _ convert: (Double, String) -> Double?) throws(MessageError) -> Double? {
            guard let quantity = try properties.optionalObject(key), let value = try quantity.optionalNumber("value") else { return nil }
            let code = try quantity.optionalString("unitCode") ?? ""
            let unit = code.hasPrefix("wmoUnit:") ? String(code.dropFirst(8)) : code.hasPrefix("unit:") ? String(code.dropFirst(5)) : code
            guard let converted = convert(value, unit) else { throw MessageError("\(key).unitCode \"\(code.prefix(30))\" is not a unit it can take") }
            return converted
        }

        static func fahrenheit(_ value: Double, _ unit: String) -> Double? {
            switch unit {
            case "degC": FeedUnits.rounded6(UnitFactors.fahrenheit(celsius: value))
            case "degF": value
            default: nil
            }
        }

        static func mph(_ value: Double, _ unit: String) -> Double? {
            switch unit {
            case "km_h-1": FeedUnits.rounded6(UnitFactors.mph(kilometersPerHour: value))
            case "m_s-1": FeedUnits.rounded6(UnitFactors.mph(metersPerSecond: value))
            case "kn": FeedUnits.rounded6(UnitFactors.mph(knots: value))
            default: nil
            }
        }

        static func hectopascals(_ value: Double, _ unit: String) -> Double? {
            switch unit {
            case "Pa": FeedUnits.rounded6(value / 100)
            case "hPa": value
            default: nil
            }
        }

        static func miles(_ value: Double, _ unit: String) -> Double? {
            switch unit {
            case "m": FeedUnits.rounded6(UnitFactors.miles(meters: value))
            case "km": FeedUnits.rounded6(UnitFactors.miles(kilometers: value))
            default: nil
            }
        }

        static func percent(_ value: Double, _ unit: String) -> Double? { unit == "percent" ? value : nil }
        static func degrees(_ value: Double, _ unit: String) -> Double? { unit == "degree_(angle)" ? value : nil }
    }

    /// `2026-11-26T07:53:00+00:00` (or `…Z`, or with a fraction) as Unix seconds.
    static func timestamp(_ text: String) -> Double? {
        if text.hasSuffix("Z") { return ISOTimestamp.unixSeconds(text) }
        let bytes = Array(text.utf8)
        guard bytes.count >= 25, let sign = bytes.dropLast(5).last, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
              bytes[bytes.count - 3] == UInt8(ascii: ":"),
              let hours = Int(String(decoding: bytes[(bytes.count - 5)..<(bytes.count - 3)], as: UTF8.self)),
              let minutes = Int(String(decoding: bytes[(bytes.count - 2)...], as: UTF8.self)), hours < 24, minutes < 60,
              let local = ISOTimestamp.unixSeconds(String(decoding: bytes.dropLast(6), as: UTF8.self) + "Z") else { return nil }
        let offset = Double(hours * 3600 + minutes * 60)
        return sign == UInt8(ascii: "+") ? local - offset : local + offset
    }

    static func record(_ feature: JSONObject, warnings: inout [String]) throws(MessageError) -> Station {
        let properties = try feature.requireObject("properties")
        let geometry = try feature.requireObject("geometry")
        guard let position = geometry.field("coordinates"), position.kind == .array else {
            throw MessageError("geometry.coordinates must be an array [longitude, latitude]")
        }
        let numbers = geometry.arrayElements(position).map { element in
            element.kind == .number ? geometry.storage.withUnsafeBytes { JSONDecoding.parseNumber($0, element.range) } + 0.0 : Double.nan
        }
        guard numbers.count >= 2, numbers[0].isFinite, numbers[1].isFinite else {
            throw MessageError("geometry.coordinates must hold two numbers [longitude, latitude]")
        }
        let coordinate = try FeedValues.coordinate(latitude: numbers[1], longitude: numbers[0])
        var id = try properties.optionalString("stationId") ?? ""
        if id.isEmpty, let url = try properties.optionalString("station") { id = String(url.split(separator: "/").last ?? "") }
        guard !id.isEmpty, id.utf8.count <= 256 else { throw MessageError("no station id (properties.stationId or properties.station)") }
        var observedAt: Double?
        if let stamp = try properties.optionalString("timestamp") {
            guard let seconds = timestamp(stamp) else { throw MessageError("properties.timestamp \"\(stamp.prefix(40))\" is not an ISO 8601 time") }
            observedAt = seconds
        }
        let q = Quantities(properties: properties)
        let heatIndex = try q.value("heatIndex", Quantities.fahrenheit), windChill = try q.value("windChill", Quantities.fahrenheit)
        let seaLevel = try q.value("seaLevelPressure", Quantities.hectopascals), station = try q.value("barometricPressure", Quantities.hectopascals)
        let details = StationDetails(
            feelsLike: heatIndex ?? windChill,
            humidity: FeedValues.percent(try q.value("relativeHumidity", Quantities.percent), "relativeHumidity", warnings: &warnings),
            pressure: FeedValues.nonNegative(seaLevel ?? station, "pressure", warnings: &warnings),
            dewPoint: try q.value("dewpoint", Quantities.fahrenheit),
            visibility: FeedValues.nonNegative(try q.value("visibility", Quantities.miles), "visibility", warnings: &warnings),
            windGust: FeedValues.nonNegative(try q.value("windGust", Quantities.mph), "windGust", warnings: &warnings),
            summary: try properties.optionalString("textDescription").flatMap { $0.isEmpty ? nil : $0 },
            observedAt: observedAt)
        return Station(id: id, name: try properties.optionalString("stationName") ?? id, coordinate: coordinate,
                       temperature: try q.value("temperature", Quantities.fahrenheit),
                       windSpeed: FeedValues.nonNegative(try q.value("windSpeed", Quantities.mph), "windSpeed", warnings: &warnings),
                       windDirection: FeedValues.direction(try q.value("windDirection", Quantities.degrees), "windDirection", warnings: &warnings),
                       details: details)
    }
}
