/// Parser for OpenWeather current weather (openweathermap.org/current): the group shape
/// `{"cnt":N,"list":[…]}` of the several-cities call, a single current-weather object, or a JSON
/// array of either (one answer per city polled).
///
/// A record gives `id` (the city id: the station id), `name`, `coord{lon,lat}`,
/// `weather[0]{id,description,icon}`, `main{temp,feels_like,temp_min,temp_max,pressure,humidity}`,
/// `visibility` (metres whatever the units), `wind{speed,deg,gust}`, `clouds{all}`, `rain`/`snow`,
/// `pop` (forecast list items: chance 0…1), `dt` and `sys{sunrise,sunset}`. Temperatures and speeds
/// come in the units the request asked for (`units=`): `standard` (the API's default) kelvin and
/// m/s, `metric` °C and m/s, `imperial` °F and mph.
public enum OpenWeatherFeed {
    /// The `units` parameter of the request that produced the body.
    public enum Units: String, Sendable, CaseIterable {
        case standard, metric, imperial

        var feedUnits: FeedUnits {
            switch self {
            case .standard: FeedUnits(temperature: .kelvin, speed: .metersPerSecond, distance: .meters)
            case .metric: FeedUnits(temperature: .celsius, speed: .metersPerSecond, distance: .meters)
            case .imperial: FeedUnits(temperature: .fahrenheit, speed: .mph, distance: .meters)
            }
        }
    }

    static let expected = "an OpenWeather current-weather response (an object with \"list\" or \"coord\", or an array of them)"

    public static func parse(_ body: [UInt8], units: Units = .standard, stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        try parse(FeedBody(body, expected: expected), units: units, stage: stage)
    }

    /// True when `object` is a group answer or one city's current weather.
    static func isResponse(_ object: JSONObject) -> Bool { object.has("list") || object.has("coord") }

    static func parse(_ body: FeedBody, units: Units, stage: String) throws(MessageError) -> ParsedFeed {
        try body.require(expected, isResponse)
        var collector = FeedCollector(stage: stage)
        for element in body.elements {
            guard let object = element.object else { collector.rejectNonObject(element.kind, excerpt: element.excerpt); continue }
            guard let list = object.field("list") else {
                guard object.has("coord") else {
                    collector.reject("not an OpenWeather city (no \"coord\") nor a group answer (no \"list\")", excerpt: element.excerpt)
                    continue
                }
                collector.add(excerpt: element.excerpt) { (warnings: inout [String]) throws(MessageError) in
                    try record(object, units: units.feedUnits, warnings: &warnings)
                }
                continue
            }
            guard list.kind == .array else {
                collector.reject("field \"list\" must be an array, found \(list.kind)", excerpt: element.excerpt)
                continue
            }
            for item in object.arrayElements(list) {
                let excerpt = FeedBody.excerpt(object.storage[item.range])
                guard item.kind == .object else { collector.rejectNonObject(item.kind, excerpt: excerpt); continue }
                collector.add(excerpt: excerpt) { (warnings: inout [String]) throws(MessageError) in
                    try record(object.object(at: item.range), units: units.feedUnits, warnings: &warnings)
                }
            }
        }
        return try collector.finish()
    }

    static func record(_ object: JSONObject, units: FeedUnits, warnings: inout [String]) throws(MessageError) -> Station {
        guard let number = try object.optionalInt("id") else { throw MessageError("missing required field \"id\"") }
        let coord = try object.requireObject("coord")
        let coordinate = try FeedValues.coordinate(latitude: try coord.requireNumber("lat"), longitude: try coord.requireNumber("lon"))
        let main = try object.optionalObject("main")
        let wind = try object.optionalObject("wind")
        let sys = try object.optionalObject("sys")
        let condition = try object.firstObject(of: "weather")
        let iconCode = try condition?.optionalString("icon")
        let conditionID = try condition?.optionalInt("id")
        let night = iconCode?.hasSuffix("n") ?? false
        let icon = conditionID.flatMap { WeatherIcon(openWeatherCondition: $0, night: night) }
            ?? iconCode.flatMap { WeatherIcon(openWeatherIcon: $0) }
        // The current-weather API gives the offset at the top, the group API inside `sys`.
        var offset = try object.optionalNumber("timezone")
        if offset == nil { offset = try sys?.optionalNumber("timezone") }
        let precipType: String? = object.field("snow") != nil ? "snow" : object.field("rain") != nil ? "rain" : nil
        let details = StationDetails(
            feelsLike: units.fahrenheit(try main?.optionalNumber("feels_like")),
            temperatureLow: units.fahrenheit(try main?.optionalNumber("temp_min")),
            temperatureHigh: units.fahrenheit(try main?.optionalNumber("temp_max")),
            humidity: FeedValues.percent(try main?.optionalNumber("humidity"), "main.humidity", warnings: &warnings),
            pressure: FeedValues.nonNegative(try main?.optionalNumber("pressure"), "main.pressure", warnings: &warnings),
            visibility: FeedValues.nonNegative(units.miles(try object.optionalNumber("visibility")), "visibility", warnings: &warnings),
            windGust: FeedValues.nonNegative(units.mph(try wind?.optionalNumber("gust")), "wind.gust", warnings: &warnings),
            cloudCover: FeedValues.percent(try object.optionalObject("clouds")?.optionalNumber("all"), "clouds.all", warnings: &warnings),
            summary: try condition?.optionalString("description"), icon: icon, precipType: precipType,
            sunrise: try sys?.optionalNumber("sunrise"), sunset: try sys?.optionalNumber("sunset"),
            observedAt: try object.optionalNumber("dt"),
            utcOffset: FeedValues.utcOffset(offset, "timezone", warnings: &warnings))
        return Station(id: String(number), name: try object.optionalString("name") ?? "", coordinate: coordinate,
                       temperature: units.fahrenheit(try main?.optionalNumber("temp")),
                       windSpeed: FeedValues.nonNegative(units.mph(try wind?.optionalNumber("speed")), "wind.speed", warnings: &warnings),
                       windDirection: FeedValues.direction(try wind?.optionalNumber("deg"), "wind.deg", warnings: &warnings),
                       precipitation: FeedValues.percent(try object.optionalNumber("pop"), "pop", upper: 1, warnings: &warnings),
                       details: details.isEmpty ? nil : details)
    }
}

extension JSONObject {
    /// A nested object member; nil when missing or null.
    func optionalObject(_ key: StaticString) throws(MessageError) -> JSONObject? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard let value = object(field) else { throw MessageError("field \"\(key)\" must be an object, found \(field.kind)") }
        return value
    }

    /// The first element of an array member when it is an object (OpenWeather's `weather[0]`);
    /// nil when the array is missing, null or empty.
    func firstObject(of key: StaticString) throws(MessageError) -> JSONObject? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard field.kind == .array else { throw MessageError("field \"\(key)\" must be an array, found \(field.kind)") }
        guard let first = arrayElements(field).first else { return nil }
        guard first.kind == .object else { throw MessageError("\(key)[0] must be an object, found \(first.kind)") }
        return object(at: first.range)
    }
}
