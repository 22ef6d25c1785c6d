/// Parser for Dark Sky forecast responses (the Forecast Request of the Dark Sky API docs):
/// `{latitude, longitude, currently{…}, hourly{data[]}, daily{data[]}, flags{units}}`, or a JSON
/// array of them (one answer per location polled).
///
/// One response gives both days: today from `currently` (with `daily.data[0]` for the low and
/// high, sunrise and sunset), tomorrow from `daily.data[1]` (its temperature is the day's high).
/// Every station also keeps the first 48 hourly and 8 daily points as its forecast. Probabilities,
/// humidity and cloud cover (0…1) become percent; `flags.units` says what the numbers are: `us`
/// (the default: °F, mph, miles), `si` (°C, m/s, km), `ca` (°C, km/h, km), `uk2` (°C, mph, miles).
/// Dark Sky names no station, so the id is the location to 4 decimals (`43.4033,-98.8295`, stable
/// across polls) and the name is empty.
public enum DarkSkyFeed {
    static let expected = "a Dark Sky forecast response (an object with \"latitude\", \"longitude\" and \"currently\" or \"daily\", or an array of them)"
    static let hourlyPoints = 48
    static let dailyPoints = 8

    public static func parse(_ body: [UInt8], day: Day = .today, stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        try parse(FeedBody(body, expected: expected), day: day, stage: stage)
    }

    static func isResponse(_ object: JSONObject) -> Bool {
        object.has("latitude", "longitude") && (object.has("currently") || object.has("daily"))
    }

    static func parse(_ body: FeedBody, day: Day, stage: String) throws(MessageError) -> ParsedFeed {
        try body.require(expected, isResponse)
        var collector = FeedCollector(stage: stage)
        for element in body.elements {
            guard let object = element.object else { collector.rejectNonObject(element.kind, excerpt: element.excerpt); continue }
            collector.add(excerpt: element.excerpt) { (warnings: inout [String]) throws(MessageError) in
                try record(object, day: day, warnings: &warnings)
            }
        }
        return try collector.finish()
    }

    static func units(_ flag: String?) throws(MessageError) -> FeedUnits {
        switch flag ?? "us" {
        case "us": FeedUnits(temperature: .fahrenheit, speed: .mph, distance: .miles)
        case "si": FeedUnits(temperature: .celsius, speed: .metersPerSecond, distance: .kilometers)
        case "ca": FeedUnits(temperature: .celsius, speed: .kilometersPerHour, distance: .kilometers)
        case "uk2", "uk": FeedUnits(temperature: .celsius, speed: .mph, distance: .miles)
        case let other: throw MessageError("flags.units \"\(other.prefix(20))\" is not one of \"us\", \"si\", \"ca\", \"uk2\"")
        }
    }

    static func record(_ object: JSONObject, day: Day, warnings: inout [String]) throws(MessageError) -> Station {
        let coordinate = try FeedValues.coordinate(latitude: try object.requireNumber("latitude"),
                                                    longitude: try object.requireNumber("longitude"))
        let units = try units(try object.optionalObject("flags")?.optionalString("units"))
        let currently = try object.optionalObject("currently")
        let days = try points(object, "daily")
        let hours = try points(object, "hourly")
        let point: JSONObject
        switch day {
        case .today:
            guard let currently else { throw MessageError("missing required field \"currently\" (today's conditions)") }
            point = currently
        case .tomorrow:
            guard days.count > 1 else { throw MessageError("daily.data has no second day (tomorrow's forecast)") }
            point = days[1]
        }
        let dayPoint = day == .today ? days.first : point
        var low: Double?, high: Double?
        if let dayPoint {
            low = try Self.low(dayPoint)
            high = try Self.high(dayPoint)
        }
        var reader = PointReader(units: units)
        var hourly: [ForecastPoint] = [], daily: [ForecastPoint] = []
        for hour in hours.prefix(hourlyPoints) { hourly.append(try reader.point(hour, daily: false)) }
        for day in days.prefix(dailyPoints) { daily.append(try reader.point(day, daily: true)) }
        let temperature = day == .today ? try point.optionalNumber("temperature") : try Self.high(point)
        let details = StationDetails(
            feelsLike: units.fahrenheit(day == .today ? try point.optionalNumber("apparentTemperature")
                                                       : try point.optionalNumber("apparentTemperatureHigh")),
            temperatureLow: units.fahrenheit(low), temperatureHigh: units.fahrenheit(high),
            humidity: FeedValues.percent(try point.optionalNumber("humidity"), "humidity", upper: 1, warnings: &warnings),
            pressure: FeedValues.nonNegative(try point.optionalNumber("pressure"), "pressure", warnings: &warnings),
            dewPoint: units.fahrenheit(try point.optionalNumber("dewPoint")),
            visibility: FeedValues.nonNegative(units.miles(try point.optionalNumber("visibility")), "visibility", warnings: &warnings),
            uvIndex: FeedValues.nonNegative(try point.optionalNumber("uvIndex"), "uvIndex", warnings: &warnings),
            windGust: FeedValues.nonNegative(units.mph(try point.optionalNumber("windGust")), "windGust", warnings: &warnings),
            cloudCover: FeedValues.percent(try point.optionalNumber("cloudCover"), "cloudCover", upper: 1, warnings: &warnings),
            summary: try point.optionalString("summary"),
            icon: (try point.optionalString("icon")).flatMap(WeatherIcon.init(rawValue:)),
            precipType: try point.optionalString("precipType"),
            sunrise: try dayPoint?.optionalNumber("sunriseTime"), sunset: try dayPoint?.optionalNumber("sunsetTime"),
            observedAt: try currently?.optionalNumber("time"),
            timeZone: FeedValues.zoneName(try object.optionalString("timezone"), "timezone", warnings: &warnings),
            hourly: hourly, daily: daily)
        warnings += reader.warnings
        let id = Phrases.of(.en).number(coordinate.latitude, digits: 4) + "," + Phrases.of(.en).number(coordinate.longitude, digits: 4)
        return Station(id: id, name: "", coordinate: coordinate, temperature: units.fahrenheit(temperature),
                       windSpeed: FeedValues.nonNegative(units.mph(try point.optionalNumber("windSpeed")), "windSpeed", warnings: &warnings),
                       windDirection: FeedValues.direction(try point.optionalNumber("windBearing"), "windBearing", warnings: &warnings),
                       precipitation: FeedValues.percent(try point.optionalNumber("precipProbability"), "precipProbability",
                                                         upper: 1, warnings: &warnings),
                       details: details)
    }

    /// A day's low: `temperatureLow` (the overnight low), else `temperatureMin`.
    static func low(_ point: JSONObject) throws(MessageError) -> Double? {
        if let low = try point.optionalNumber("temperatureLow") { return low }
        return try point.optionalNumber("temperatureMin")
    }

    /// A day's high: `temperatureHigh` (the daytime high), else `temperatureMax`.
    static func high(_ point: JSONObject) throws(MessageError) -> Double? {
        if let high = try point.optionalNumber("temperatureHigh") { return high }
        return try point.optionalNumber("temperatureMax")
    }

    /// The data points of `hourly` or `daily` (`{"data":[…]}`); empty when the block is absent.
    static func points(_ object: JSONObject, _ key: StaticString) throws(MessageError) -> [JSONObject] {
        guard let block = try object.optionalObject(key), let data = block.field("data"), data.kind != .null else { return [] }
        guard data.kind == .array else { throw MessageError("\(key).data must be an array, found \(data.kind)") }
        var points: [JSONObject] = []
        for (index, element) in block.arrayElements(data).enumerated() {
            guard element.kind == .object else { throw MessageError("\(key).data[\(index)] is \(element.kind), not an object") }
            points.append(block.object(at: element.range))
        }
        return points
    }

    /// Reads forecast points in one response's units, collecting their warnings.
    struct PointReader {
        let units: FeedUnits
        var warnings: [String] = []

        mutating func point(_ object: JSONObject, daily: Bool) throws(MessageError) -> ForecastPoint {
            guard let time = try object.optionalNumber("time") else { throw MessageError("a forecast point has no \"time\"") }
            return ForecastPoint(
                time: time, summary: try object.optionalString("summary"),
                icon: (try object.optionalString("icon")).flatMap(WeatherIcon.init(rawValue:)),
                temperature: daily ? nil : units.fahrenheit(try object.optionalNumber("temperature")),
                temperatureLow: daily ? units.fahrenheit(try DarkSkyFeed.low(object)) : nil,
                temperatureHigh: daily ? units.fahrenheit(try DarkSkyFeed.high(object)) : nil,
                precipitation: FeedValues.percent(try object.optionalNumber("precipProbability"), "precipProbability", upper: 1, warnings: &warnings),
                precipType: try object.optionalString("precipType"),
                windSpeed: FeedValues.nonNegative(units.mph(try object.optionalNumber("windSpeed")), "windSpeed", warnings: &warnings),
                windDirection: FeedValues.direction(try object.optionalNumber("windBearing"), "windBearing", warnings: &warnings))
        }
    }
}
