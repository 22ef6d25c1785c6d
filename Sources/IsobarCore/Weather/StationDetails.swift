#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The optional fields of a station beyond the four every feed has: what a detail screen shows
/// (feels-like, low/high, humidity, pressure, … sunrise and sunset, the forecast).
///
/// Kept out of line, as one immutable object a `Station` points to (nil for an onX station), so a
/// station of a feed without them costs 8 bytes more, not 16 inline optionals. Units are the
/// model's: °F, mph, miles, hPa, percent, Unix seconds. On a `station` line each field is its own
/// key, present only when known (a missing key means null).
public final class StationDetails: Sendable, Equatable {
    /// Apparent temperature, °F.
    public let feelsLike: Double?
    /// The day's low and high, °F.
    public let temperatureLow: Double?
    public let temperatureHigh: Double?
    /// Relative humidity, percent.
    public let humidity: Double?
    /// Sea-level pressure, hPa.
    public let pressure: Double?
    /// Dew point, °F.
    public let dewPoint: Double?
    /// Visibility, miles.
    public let visibility: Double?
    public let uvIndex: Double?
    /// Wind gust, mph.
    public let windGust: Double?
    /// Cloud cover, percent.
    public let cloudCover: Double?
    /// A short human summary from the feed ("light intensity drizzle", "Partly Cloudy").
    public let summary: String?
    public let icon: WeatherIcon?
    /// `rain`, `snow` or `sleet`, as the feed says.
    public let precipType: String?
    /// Unix seconds.
    public let sunrise: Double?
    public let sunset: Double?
    /// When the values were observed (or issued, for a forecast), Unix seconds: what staleness is
    /// measured from.
    public let observedAt: Double?
    /// The station's IANA time zone when the feed names one (Dark Sky's `timezone`): what its
    /// times are shown in (PROTOCOL.md, "Local time").
    public let timeZone: String?
    /// The station's offset from UTC in seconds when the feed gives only that (OpenWeather's
    /// `timezone`); ignored when `timeZone` is known.
    public let utcOffset: Double?
    /// The next hours and days (Dark Sky's `hourly` and `daily`), empty when the feed has none.
    public let hourly: [ForecastPoint]
    public let daily: [ForecastPoint]

    public init(feelsLike: Double? = nil, temperatureLow: Double? = nil, temperatureHigh: Double? = nil,
                humidity: Double? = nil, pressure: Double? = nil, dewPoint: Double? = nil, visibility: Double? = nil,
                uvIndex: Double? = nil, windGust: Double? = nil, cloudCover: Double? = nil, summary: String? = nil,
                icon: WeatherIcon? = nil, precipType: String? = nil, sunrise: Double? = nil, sunset: Double? = nil,
                observedAt: Double? = nil, timeZone: String? = nil, utcOffset: Double? = nil,
                hourly: [ForecastPoint] = [], daily: [ForecastPoint] = []) {
        self.feelsLike = feelsLike
        self.temperatureLow = temperatureLow
        self.temperatureHigh = temperatureHigh
        self.humidity = humidity
        self.pressure = pressure
        self.dewPoint = dewPoint
        self.visibility = visibility
        self.uvIndex = uvIndex
        self.windGust = windGust
        self.cloudCover = cloudCover
        self.summary = summary
        self.icon = icon
        self.precipType = precipType
        self.sunrise = sunrise
        self.sunset = sunset
        self.observedAt = observedAt
        self.timeZone = timeZone
        self.utcOffset = utcOffset
        self.hourly = hourly
        self.daily = daily
    }

    /// The numeric fields with their JSON keys, in the order they are written.
    var numbers: [(key: StaticString, value: Double?)] {
        [("feelsLike", feelsLike), ("temperatureLow", temperatureLow), ("temperatureHigh", temperatureHigh),
         ("humidity", humidity), ("pressure", pressure), ("dewPoint", dewPoint), ("visibility", visibility),
         ("uvIndex", uvIndex), ("windGust", windGust), ("cloudCover", cloudCover)]
    }

    /// True when no field is known (such details are dropped: the station has none).
    public var isEmpty: Bool {
        numbers.allSatisfy { $0.value == nil } && summary == nil && icon == nil && precipType == nil && sunrise == nil
            && sunset == nil && observedAt == nil && timeZone == nil && utcOffset == nil && hourly.isEmpty && daily.isEmpty
    }

    /// Reads the optional keys of a `station` line (or of a station inside a `selection` or
    /// `detail`); nil when it has none of them.
    public static func read(from object: JSONObject) throws(MessageError) -> StationDetails? {
        // Most lines (every onX station) have none: one pass over the keys, not 18 lookups.
        guard mayHaveDetails(object) else { return nil }
        let hourly = try forecast(object, "hourly")
        let daily = try forecast(object, "daily")
        let details = StationDetails(
            feelsLike: try object.optionalNumber("feelsLike"), temperatureLow: try object.optionalNumber("temperatureLow"),
            temperatureHigh: try object.optionalNumber("temperatureHigh"), humidity: try object.optionalNumber("humidity"),
            pressure: try object.optionalNumber("pressure"), dewPoint: try object.optionalNumber("dewPoint"),
            visibility: try object.optionalNumber("visibility"), uvIndex: try object.optionalNumber("uvIndex"),
            windGust: try object.optionalNumber("windGust"), cloudCover: try object.optionalNumber("cloudCover"),
            summary: try object.optionalString("summary"), icon: try object.optionalEnum("icon", WeatherIcon.self),
            precipType: try object.optionalString("precipType"), sunrise: try object.optionalNumber("sunrise"),
            sunset: try object.optionalNumber("sunset"), observedAt: try object.optionalNumber("observedAt"),
            timeZone: try object.optionalString("timeZone"), utcOffset: try object.optionalNumber("utcOffset"),
            hourly: hourly, daily: daily)
        try details.validate()
        return details.isEmpty ? nil : details
    }

    /// The optional fields' keys, indexed by length (the first filter of `mayHaveDetails`).
    private static let keysByLength: [[StaticString]] = {
        let keys: [StaticString] = ["feelsLike", "temperatureLow", "temperatureHigh", "humidity", "pressure", "dewPoint", "visibility",
                                    "uvIndex", "windGust", "cloudCover", "summary", "icon", "precipType", "sunrise", "sunset",
                                    "observedAt", "timeZone", "utcOffset", "hourly", "daily"]
        var table = [[StaticString]](repeating: [], count: 16)
        for key in keys { table[key.utf8CodeUnitCount].append(key) }
        return table
    }()

    /// Whether any key of `object` is an optional field's (an escaped key is assumed to be one, and
    /// then read the slow way).
    static func mayHaveDetails(_ object: JSONObject) -> Bool {
        object.storage.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            for field in object.fields {
                if field.keyEscaped { return true }
                let length = field.keyRange.count
                guard length < keysByLength.count else { continue }
                for key in keysByLength[length] where memcmp(base + field.keyRange.lowerBound, key.utf8Start, field.keyRange.count) == 0 {
                    return true
                }
            }
            return false
        }
    }

    /// The ranges a reader enforces (and a parser must produce).
    func validate() throws(MessageError) {
        try WeatherRanges.check(percent: humidity, "humidity")
        try WeatherRanges.check(percent: cloudCover, "cloudCover")
        try WeatherRanges.check(nonNegative: visibility, "visibility")
        try WeatherRanges.check(nonNegative: uvIndex, "uvIndex")
        try WeatherRanges.check(speed: windGust, "windGust")
        try WeatherRanges.check(temperature: feelsLike, "feelsLike")
        try WeatherRanges.check(temperature: temperatureLow, "temperatureLow")
        try WeatherRanges.check(temperature: temperatureHigh, "temperatureHigh")
        try WeatherRanges.check(temperature: dewPoint, "dewPoint")
        for point in hourly { try point.checkRanges() }
        for point in daily { try point.checkRanges() }
        try WeatherRanges.check(nonNegative: pressure, "pressure")
        if let timeZone, !Self.isZoneName(timeZone) {
            throw MessageError("field \"timeZone\" must be an IANA zone name (1 to 64 of A-Z a-z 0-9 / _ + -)", code: .outOfRange)
        }
        if let utcOffset, !(utcOffset == utcOffset.rounded() && abs(utcOffset) <= Self.maxUTCOffset) {
            throw MessageError("field \"utcOffset\" must be whole seconds in [-64800, 64800]", code: .outOfRange)
        }
    }

    /// The largest offset from UTC a station may give, in seconds (18 hours, as ISO 8601 and
    /// java.time allow; real zones stay within -12 h and +14 h).
    public static let maxUTCOffset = 64_800.0

    /// Whether `name` is spelled as an IANA zone name can be: 1 to 64 ASCII letters, digits and
    /// `/ _ + -` (whether the zone exists is the formatter's question: an unknown one is shown in
    /// the next zone it knows, PROTOCOL.md "Local time").
    public static func isZoneName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
        }
    }

    /// The most forecast points a station line may carry per array (Dark Sky sends 49 hours and 8 days).
    public static let maxForecastPoints = 400

    private static func forecast(_ object: JSONObject, _ key: StaticString) throws(MessageError) -> [ForecastPoint] {
        guard let field = object.field(key), field.kind != .null else { return [] }
        guard field.kind == .array else { throw MessageError("field \"\(key)\" must be an array, found \(field.kind)") }
        var points: [ForecastPoint] = []
        var index = 0
        try object.forEachElement(field) { (element: JSONObject?, kind: JSONKind) throws(MessageError) in
            guard let element else { throw MessageError("\(key)[\(index)] is \(kind), not an object") }
            guard points.count < maxForecastPoints else { throw MessageError("\(key) has more than \(maxForecastPoints) points") }
            do throws(MessageError) {
                points.append(try ForecastPoint(from: element))
            } catch {
                throw MessageError("\(key)[\(index)]: \(error.message)", code: error.code)
            }
            index += 1
        }
        return points
    }

    /// Writes the known fields as members of the enclosing station object.
    public func writeMembers(to out: inout JSONWriter) {
        for (key, value) in numbers { if let value { out.key(key); out.number(value) } }
        if let summary { out.key("summary"); out.string(summary) }
        if let icon { out.key("icon"); out.string(icon.rawValue) }
        if let precipType { out.key("precipType"); out.string(precipType) }
        if let sunrise { out.key("sunrise"); out.number(sunrise) }
        if let sunset { out.key("sunset"); out.number(sunset) }
        if let observedAt { out.key("observedAt"); out.number(observedAt) }
        if let timeZone { out.key("timeZone"); out.string(timeZone) }
        if let utcOffset { out.key("utcOffset"); out.number(utcOffset) }
        for (key, points) in [("hourly" as StaticString, hourly), ("daily", daily)] where !points.isEmpty {
            out.key(key)
            out.arrayStart()
            for point in points { point.write(to: &out) }
            out.arrayEnd()
        }
    }

    /// The fields as one JSON object (how persist stores them: one column, NULL for none).
    public var json: String {
        var out = JSONWriter(capacity: 256)
        out.objectStart()
        writeMembers(to: &out)
        out.objectEnd()
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Reads what `json` wrote.
    public static func read(json: String) throws(MessageError) -> StationDetails? {
        let object: JSONObject
        do { object = try JSONObject(parsing: json) } catch { throw MessageError("stored details are not a JSON object: \(error)") }
        return try read(from: object)
    }

    /// Adds every field to a station's fingerprint.
    func add(to hash: inout FNV1a) {
        for (_, value) in numbers { hash.add(value) }
        for text in [summary, icon?.rawValue, precipType] { hash.add(text ?? "\u{0}") }
        for value in [sunrise, sunset, observedAt] { hash.add(value) }
        // Only when known, so a station without a zone hashes as before the fields existed.
        if let timeZone { hash.add(byte: 1); hash.add(timeZone) }
        if let utcOffset { hash.add(byte: 2); hash.add(utcOffset) }
        hash.add(UInt64(hourly.count))
        for point in hourly { point.add(to: &hash) }
        hash.add(UInt64(daily.count))
        for point in daily { point.add(to: &hash) }
    }

    public static func == (a: StationDetails, b: StationDetails) -> Bool {
        if a === b { return true }
        return a.numbers.map(\.value) == b.numbers.map(\.value) && a.summary == b.summary && a.icon == b.icon
            && a.precipType == b.precipType && a.sunrise == b.sunrise && a.sunset == b.sunset
            && a.observedAt == b.observedAt && a.timeZone == b.timeZone && a.utcOffset == b.utcOffset && a.hourly == b.hourly && a.daily == b.daily
    }
}
