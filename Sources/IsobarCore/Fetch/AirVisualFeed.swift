/// Parser for AirVisual's `nearest_city` answer (api-docs.iqair.com, "Get nearest city data"):
/// `{"status":"success","data":{city, state, country, location{coordinates:[lon, lat]},
/// current{weather{ts, tp, pr, hu, ws, wd, ic}}}}`, or a JSON array of such answers (one per place
/// polled).
///
/// `tp` is °C, `pr` hPa, `hu` percent, `ws` m/s, `wd` degrees, `ic` an OpenWeather icon code and
/// `ts` the observation time (ISO 8601, UTC). The station id is `country/state/city`, the name the
/// city. An answer whose `status` is not `success` (`{"status":"fail","data":{"message":…}}`) is
/// rejected alone.
public enum AirVisualFeed {
    static let expected = "an AirVisual nearest_city response (an object with \"status\" and \"data\", or an array of them)"
    static let units = FeedUnits(temperature: .celsius, speed: .metersPerSecond, distance: .kilometers)

    public static func parse(_ body: [UInt8], stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        try parse(FeedBody(body, expected: expected), stage: stage)
    }

    static func isResponse(_ object: JSONObject) -> Bool { object.has("status", "data") }

    static func parse(_ body: FeedBody, stage: String) throws(MessageError) -> ParsedFeed {
        try body.require(expected, isResponse)
        var collector = FeedCollector(stage: stage)
        for element in body.elements {
            guard let object = element.object else { collector.rejectNonObject(element.kind, excerpt: element.excerpt); continue }
            collector.add(excerpt: element.excerpt) { (warnings: inout [String]) throws(MessageError) in
                try record(object, warnings: &warnings)
            }
        }
        return try collector.finish()
    }

    static func record(_ object: JSONObject, warnings: inout [String]) throws(MessageError) -> Station {
        let status = try object.requireString("status")
        let data = try object.requireObject("data")
        guard status == "success" else {
            let reason = (try? data.optionalString("message")).flatMap { $0 } ?? "no message"
            throw MessageError("status \"\(status.prefix(20))\": \(reason.prefix(80))")
        }
        let city = try data.requireName("city"), state = try data.requireName("state"), country = try data.requireName("country")
        let position = try data.requireObject("location").field("coordinates")
        guard let position, position.kind == .array else { throw MessageError("location.coordinates must be an array [longitude, latitude]") }
        var numbers: [Double] = []
        for element in try data.requireObject("location").arrayElements(position) {
            let value = data.storage.withUnsafeBytes { JSONDecoding.parseNumber($0, element.range) }
            guard element.kind == .number, value.isFinite else {
                throw MessageError("location.coordinates must hold two numbers [longitude, latitude]")
            }
            numbers.append(value + 0.0)
        }
        guard numbers.count == 2 else { throw MessageError("location.coordinates must hold two numbers [longitude, latitude], found \(numbers.count)") }
        let coordinate = try FeedValues.coordinate(latitude: numbers[1], longitude: numbers[0])
        let weather = try data.requireObject("current").requireObject("weather")
        var observedAt: Double?
        if let stamp = try weather.optionalString("ts") {
            guard let seconds = ISOTimestamp.unixSeconds(stamp) else {
                throw MessageError("current.weather.ts \"\(stamp.prefix(40))\" is not an ISO 8601 UTC time (2019-08-04T01:00:00.000Z)")
            }
            observedAt = seconds
        }
        let details = StationDetails(
            humidity: FeedValues.percent(try weather.optionalNumber("hu"), "hu", warnings: &warnings),
            pressure: FeedValues.nonNegative(try weather.optionalNumber("pr"), "pr", warnings: &warnings),
            icon: (try weather.optionalString("ic")).flatMap { WeatherIcon(openWeatherIcon: $0) },
            observedAt: observedAt)
        return Station(id: country + "/" + state + "/" + city, name: city, coordinate: coordinate,
                       temperature: units.fahrenheit(try weather.optionalNumber("tp")),
                       windSpeed: FeedValues.nonNegative(units.mph(try weather.optionalNumber("ws")), "ws", warnings: &warnings),
                       windDirection: FeedValues.direction(try weather.optionalNumber("wd"), "wd", warnings: &warnings),
                       details: details.isEmpty ? nil : details)
    }
}
