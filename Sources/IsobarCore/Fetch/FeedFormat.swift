/// The feed formats `isobar fetch --format` reads, and `auto`, which recognises the body by its
/// shape (the first response or record) and says which it chose.
public enum FeedFormat: String, Sendable, CaseIterable, Equatable {
    case onx, openweather, darksky, airvisual, metar, openmeteo, nws, auto

    /// Options some formats need to read their numbers.
    public struct Options: Sendable, Equatable {
        /// What an OpenWeather request asked for with `units=` (the API's default is `standard`).
        public var openWeatherUnits: OpenWeatherFeed.Units
        public init(openWeatherUnits: OpenWeatherFeed.Units = .standard) { self.openWeatherUnits = openWeatherUnits }
    }

    /// Parses a body of this format for `day` (Dark Sky and Open-Meteo give each day from one answer; the other
    /// formats give the same stations whichever day they are polled for). Returns what was read and
    /// the concrete format (the recognised one for `auto`).
    public func parse(_ body: [UInt8], day: Day, options: Options = Options(), stage: String = "fetch")
        throws(MessageError) -> (feed: ParsedFeed, format: FeedFormat) {
        switch self {
        case .onx: return (try OnXFeed.parse(body, stage: stage), .onx)
        case .openweather: return (try OpenWeatherFeed.parse(body, units: options.openWeatherUnits, stage: stage), .openweather)
        case .darksky: return (try DarkSkyFeed.parse(body, day: day, stage: stage), .darksky)
        case .airvisual: return (try AirVisualFeed.parse(body, stage: stage), .airvisual)
        case .metar: return (try MetarFeed.parse(body, stage: stage), .metar)
        case .openmeteo: return (try OpenMeteoFeed.parse(body, day: day, stage: stage), .openmeteo)
        case .nws: return (try NWSFeed.parse(body, stage: stage), .nws)
        case .auto:
            let format = try Self.recognise(body)
            return try format.parse(body, day: day, options: options, stage: stage)
        }
    }

    /// The format whose shape the body's first object has.
    public static func recognise(_ body: [UInt8]) throws(MessageError) -> FeedFormat {
        // The one table format: AWC's METAR cache file, known by its header line.
        if MetarFeed.isTable(body) { return .metar }
        let first: JSONObject?
        if body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
            // The first element only: an onX body of a million records is not scanned twice.
            first = Self.firstElement(body)
        } else {
            first = try? JSONObject(storage: body)
        }
        guard let object = first else {
            throw MessageError("feed body is neither a JSON object nor an array of objects, so no format (onx, openweather, darksky, airvisual, metar, openmeteo, nws) recognises it")
        }
        // Before Dark Sky: an Open-Meteo answer also has latitude, longitude and daily (and *_units).
        if OpenMeteoFeed.isResponse(object) { return .openmeteo }
        if DarkSkyFeed.isResponse(object) { return .darksky }
        if OpenWeatherFeed.isResponse(object) { return .openweather }
        if AirVisualFeed.isResponse(object) { return .airvisual }
        if MetarFeed.isResponse(object) { return .metar }
        if NWSFeed.isResponse(object) { return .nws }
        if OnXFeed.isRecord(object) { return .onx }
        let keys = object.keys.prefix(6).map { "\"\($0.prefix(20))\"" }.joined(separator: ", ")
        throw MessageError("feed body matches none of the formats onx, openweather, darksky, airvisual, metar, openmeteo, nws (its first object has \(keys)); give --format")
    }

    private static func firstElement(_ body: [UInt8]) -> JSONObject? {
        guard let open = body.firstIndex(of: UInt8(ascii: "[")) else { return nil }
        var index = open + 1
        while index < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[index]) { index += 1 }
        guard index < body.count, body[index] == UInt8(ascii: "{") else { return nil }
        // Find the element's end by depth, outside strings; then validate just that slice.
        var depth = 0, inString = false, escaped = false, end = index
        while end < body.count {
            let byte = body[end]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { break }
            }
            end += 1
        }
        guard end < body.count else { return nil }
        return try? JSONObject(storage: Array(body[index...end]))
    }
}
