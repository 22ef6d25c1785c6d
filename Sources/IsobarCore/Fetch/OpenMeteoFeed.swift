/// Parser for Open-Meteo forecast responses (open-meteo.com/en/docs, `GET /v1/forecast`):
/// `{latitude, longitude, utc_offset_seconds, timezone, current_units{…}, current{time, …},
/// hourly_units{…}, hourly{time[], …}, daily_units{…}, daily{time[], …}}`, or a JSON array of
/// them (one answer per point; the API also answers several `latitude=a,b` points as an array).
///
/// Units are read from each block's `*_units` object, per variable, whatever the request chose:
/// temperatures `°C`/`°F`, speeds `km/h`/`m/s`/`mp/h`/`kn`, visibility `m`/`ft`. Times are Unix
/// seconds with `timeformat=unixtime`; otherwise (`iso8601`, the default) they are local times of
/// the point (`timezone=auto`) and `utc_offset_seconds` makes them UTC (one offset for the whole
/// answer, so ask for `unixtime` where a daylight-saving change falls inside the forecast).
///
/// Like Dark Sky: today from `current` (with `daily[0]` for the low, high, sunrise and sunset),
/// tomorrow from `daily[1]` (its temperature is the day's high); every station keeps 48 hourly
/// points from the current hour and up to 8 daily points as its forecast. The id is the grid
/// point Open-Meteo answered for, to 4 decimals (`48.7200,21.2600`), the name empty.
///
/// Variables read (the request should ask for them): current `temperature_2m`,
/// `relative_humidity_2m`, `apparent_temperature`, `dew_point_2m`, `is_day`, `weather_code`,
/// `cloud_cover`, `pressure_msl`, `visibility`, `wind_speed_10m`, `wind_direction_10m`,
/// `wind_gusts_10m`; hourly `temperature_2m`, `precipitation_probability`, `weather_code`,
/// `wind_speed_10m`, `wind_direction_10m`; daily `weather_code`, `temperature_2m_max`,
/// `temperature_2m_min`, `precipitation_probability_max`, `sunrise`, `sunset`,
/// `wind_speed_10m_max`, `wind_direction_10m_dominant`, `uv_index_max`. A missing one is unknown.
public enum OpenMeteoFeed {
    static let expected = "an Open-Meteo forecast response (an object with \"latitude\", \"longitude\" and \"hourly\", \"daily\" or \"current\", or an array of them)"
    static let hourlyPoints = 48
    static let dailyPoints = 8

    /// True when `object` is a forecast answer (Dark Sky's has no `*_units`).
    static func isResponse(_ object: JSONObject) -> Bool {
        object.has("latitude", "longitude") && (object.has("hourly_units") || object.has("daily_units") || object.has("current_units"))
    }

    public static func parse(_ body: [UInt8], day: Day = .today, stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        let answers = try FeedBody(body, expected: expected)
        try answers.require(expected, isResponse)
        return try answers.collect(stage: stage) { (object: JSONObject, warnings: inout [String]) throws(MessageError) in
            try record(object, day: day, warnings: &warnings)
        }
    }

    /// One block (`current`, or one index of `hourly`/`daily`) with its units and the answer's offset.
    struct Block {
        let values: JSONObject
        let units: JSONObject?
        let index: Int?
        let offset: Double
        let name: String

        func number(_ key: StaticString) throws(MessageError) -> Double? {
            guard let field = values.field(key), field.kind != .null else { return nil }
            guard let index else {
                guard let value = values.number(field), value.isFinite else { throw MessageError("\(name).\(key) must be a number, found \(field.kind)") }
                return value + 0.0
            }
            guard field.kind == .array else { throw MessageError("\(name).\(key) must be an array, found \(field.kind)") }
            let elements = values.arrayElements(field)
            guard index < elements.count else { throw MessageError("\(name).\(key) has \(elements.count) values, fewer than \(name).time") }
            let element = elements[index]
            if element.kind == .null { return nil }
            let value = values.storage.withUnsafeBytes { JSONDecoding.parseNumber($0, element.range) }
            guard element.kind == .number, value.isFinite else { throw MessageError("\(name).\(key)[\(index)] must be a number, found \(element.kind)") }
            return value + 0.0
        }

        func unit(_ key: StaticString) throws(MessageError) -> String? { try units?.optionalString(key) }

        func fahrenheit(_ key: StaticString) throws(MessageError) -> Double? {
            guard let value = try number(key) else { return nil }
            switch try unit(key) {
            case "°C", nil: return FeedUnits.rounded6(UnitFactors.fahrenheit(celsius: value))
            case "°F": return value
            case let other?: throw MessageError("\(name)_units.\(key) \"\(other.prefix(12))\" is not °C or °F")
            }
        }

        func mph(_ key: StaticString) throws(MessageError) -> Double? {
            guard let value = try number(key) else { return nil }
            switch try unit(key) {
            case "km/h", nil: return FeedUnits.rounded6(UnitFactors.mph(kilometersPerHour: value))
            case "m/s": return FeedUnits.rounded6(UnitFactors.mph(metersPerSecond: value))
            case "mp/h", "mph": return value
            case "kn", "kt": return FeedUnits.rounded6(UnitFactors.mph(knots: value))
            case let other?: throw MessageError("\(name)_units.\(key) \"\(other.prefix(12))\" is not km/h, m/s, mp/h or kn")
            }
        }

        func miles(_ key: StaticString) throws(MessageError) -> Double? {
            guard let value = try number(key) else { return nil }
            switch try unit(key) {
            case "m", nil: return FeedUnits.rounded6(UnitFactors.miles(meters: value))
            case "ft": return FeedUnits.rounded6(value * 0.3048 / UnitFactors.metersPerMile)
            case let other?: throw MessageError("\(name)_units.\(key) \"\(other.prefix(12))\" is not m or ft")
            }
        }

        /// A time: Unix seconds, or a local ISO time (`2026-11-26T09:00`, `2026-11-26`) made UTC by the offset.
        func time(_ key: StaticString) throws(MessageError) -> Double? {
            guard let field = values.field(key), field.kind != .null else { return nil }
            let kind: JSONKind, text: String?, number: Double?
            if let index {
                let elements = values.arrayElements(field)
                guard field.kind == .array, index < elements.count else { throw MessageError("\(name).\(key) has no value \(index)") }
                let element = elements[index]
                kind = element.kind
                text = element.kind == .string ? values.storage.withUnsafeBytes { JSONDecoding.unescape($0, (element.range.lowerBound + 1)..<(element.range.upperBound - 1)) } : nil
                number = element.kind == .number ? values.storage.withUnsafeBytes { JSONDecoding.parseNumber($0, element.range) } : nil
            } else {
                kind = field.kind
                text = values.string(field)
                number = values.number(field)
            }
            if kind == .null { return nil }
            if let number, number.isFinite { return number + 0.0 }
            guard let text else { throw MessageError("\(name).\(key) must be a time, found \(kind)") }
            let stamp: String
            switch text.utf8.count {
            case 10: stamp = text + "T00:00:00Z"
            case 16: stamp = text + ":00Z"
            default: stamp = ""
            }
            guard let local = ISOTimestamp.unixSeconds(stamp) else {
                throw MessageError("\(name).\(key) \"\(text.prefix(24))\" is not a local time (2026-11-26T09:00) nor Unix seconds")
            }
            return local - offset
        }

        func code() throws(MessageError) -> Int? {
            guard let value = try number("weather_code") else { return nil }
            guard value == value.rounded(), (0...99).contains(value) else { throw MessageError("\(name).weather_code \(value) is not a WMO code 0...99") }
            return Int(value)
        }
    }

    /// The number of entries of a block's `time` array (0 when the block is absent).
    static func count(_ block: JSONObject?, _ name: String) throws(MessageError) -> Int {
        guard let block else { return 0 }
        guard let field = block.field("time"), field.kind == .array else { throw MessageError("\(name).time must be an array") }
        return block.arrayElements(field).count
    }

    static func record(_ object: JSONObject, day: Day, warnings: inout [String]) throws(MessageError) -> Station {
        if let reason = try object.optionalString("reason"), try object.optionalBool("error") == true {
            throw MessageError("error: \(reason.prefix(120))")
        }
        let coordinate = try FeedValues.coordinate(latitude: try object.requireNumber("latitude"), longitude: try object.requireNumber("longitude"))
        let offset = try object.optionalNumber("utc_offset_seconds") ?? 0
        let currentValues = try object.optionalObject("current")
        let hourlyValues = try object.optionalObject("hourly"), dailyValues = try object.optionalObject("daily")
        let currentUnits = try object.optionalObject("current_units")
        let current = currentValues.map { Block(values: $0, units: currentUnits, index: nil, offset: offset, name: "current") }
        let hourlyUnits = try object.optionalObject("hourly_units"), dailyUnits = try object.optionalObject("daily_units")
        let hours = try count(hourlyValues, "hourly"), days = try count(dailyValues, "daily")
        let hourly = (0..<hours).compactMap { index in hourlyValues.map { Block(values: $0, units: hourlyUnits, index: index, offset: offset, name: "hourly") } }
        let daily = (0..<days).compactMap { index in dailyValues.map { Block(values: $0, units: dailyUnits, index: index, offset: offset, name: "daily") } }

        let now = try current?.time("time")
        var hourPoints: [ForecastPoint] = [], dayPoints: [ForecastPoint] = []
        for hour in hourly {
            guard hourPoints.count < hourlyPoints, let time = try hour.time("time") else { continue }
            // From the hour the current conditions fall in (Open-Meteo's hourly starts at local midnight).
            if let now, time + 3600 <= now { continue }
            let code = try hour.code()
            hourPoints.append(ForecastPoint(
                time: time, summary: code.flatMap(OpenMeteoWeatherCode.summary), icon: code.flatMap { OpenMeteoWeatherCode.icon($0, night: false) },
                temperature: try hour.fahrenheit("temperature_2m"),
                precipitation: FeedValues.percent(try hour.number("precipitation_probability"), "hourly.precipitation_probability", warnings: &warnings),
                precipType: code.flatMap(OpenMeteoWeatherCode.precipType),
                windSpeed: FeedValues.nonNegative(try hour.mph("wind_speed_10m"), "hourly.wind_speed_10m", warnings: &warnings),
                windDirection: FeedValues.direction(try hour.number("wind_direction_10m"), "hourly.wind_direction_10m", warnings: &warnings)))
        }
        for block in daily.prefix(dailyPoints) {
            guard let time = try block.time("time") else { throw MessageError("daily.time has a null entry") }
            let code = try block.code()
            dayPoints.append(ForecastPoint(
                time: time, summary: code.flatMap(OpenMeteoWeatherCode.summary), icon: code.flatMap { OpenMeteoWeatherCode.icon($0, night: false) },
                temperatureLow: try block.fahrenheit("temperature_2m_min"), temperatureHigh: try block.fahrenheit("temperature_2m_max"),
                precipitation: FeedValues.percent(try block.number("precipitation_probability_max"), "daily.precipitation_probability_max", warnings: &warnings),
                precipType: code.flatMap(OpenMeteoWeatherCode.precipType),
                windSpeed: FeedValues.nonNegative(try block.mph("wind_speed_10m_max"), "daily.wind_speed_10m_max", warnings: &warnings),
                windDirection: FeedValues.direction(try block.number("wind_direction_10m_dominant"), "daily.wind_direction_10m_dominant", warnings: &warnings)))
        }

        let id = Phrases.of(.en).number(coordinate.latitude, digits: 4) + "," + Phrases.of(.en).number(coordinate.longitude, digits: 4)
        switch day {
        case .today:
            guard let current else { throw MessageError("missing required field \"current\" (today's conditions)") }
            let code = try current.code()
            let night = try current.number("is_day") == 0
            let first = daily.first
            let details = StationDetails(
                feelsLike: try current.fahrenheit("apparent_temperature"),
                temperatureLow: try first?.fahrenheit("temperature_2m_min"), temperatureHigh: try first?.fahrenheit("temperature_2m_max"),
                humidity: FeedValues.percent(try current.number("relative_humidity_2m"), "current.relative_humidity_2m", warnings: &warnings),
                pressure: FeedValues.nonNegative(try current.number("pressure_msl"), "current.pressure_msl", warnings: &warnings),
                dewPoint: try current.fahrenheit("dew_point_2m"),
                visibility: FeedValues.nonNegative(try current.miles("visibility"), "current.visibility", warnings: &warnings),
                uvIndex: FeedValues.nonNegative(try first?.number("uv_index_max"), "daily.uv_index_max", warnings: &warnings),
                windGust: FeedValues.nonNegative(try current.mph("wind_gusts_10m"), "current.wind_gusts_10m", warnings: &warnings),
                cloudCover: FeedValues.percent(try current.number("cloud_cover"), "current.cloud_cover", warnings: &warnings),
                summary: code.flatMap(OpenMeteoWeatherCode.summary), icon: code.flatMap { OpenMeteoWeatherCode.icon($0, night: night) },
                precipType: code.flatMap(OpenMeteoWeatherCode.precipType),
                sunrise: try first?.time("sunrise"), sunset: try first?.time("sunset"), observedAt: now,
                hourly: hourPoints, daily: dayPoints)
            return Station(id: id, name: "", coordinate: coordinate, temperature: try current.fahrenheit("temperature_2m"),
                           windSpeed: FeedValues.nonNegative(try current.mph("wind_speed_10m"), "current.wind_speed_10m", warnings: &warnings),
                           windDirection: FeedValues.direction(try current.number("wind_direction_10m"), "current.wind_direction_10m", warnings: &warnings),
                           precipitation: hourPoints.first?.precipitation, details: details)
        case .tomorrow:
            guard daily.count > 1, dayPoints.count > 1 else { throw MessageError("daily.time has no second day (tomorrow's forecast)") }
            let point = dayPoints[1]
            let details = StationDetails(
                temperatureLow: point.temperatureLow, temperatureHigh: point.temperatureHigh,
                uvIndex: FeedValues.nonNegative(try daily[1].number("uv_index_max"), "daily.uv_index_max", warnings: &warnings),
                summary: point.summary, icon: point.icon, precipType: point.precipType,
                sunrise: try daily[1].time("sunrise"), sunset: try daily[1].time("sunset"),
                observedAt: now, hourly: hourPoints, daily: dayPoints)
            return Station(id: id, name: "", coordinate: coordinate, temperature: point.temperatureHigh,
                           windSpeed: point.windSpeed, windDirection: point.windDirection, precipitation: point.precipitation, details: details)
        }
    }
}
