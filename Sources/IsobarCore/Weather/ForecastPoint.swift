/// One hour or one day of a station's forecast (Dark Sky's hourly and daily data points), in the
/// model's units: °F, mph, percent. Unknown values are nil and are left out of the JSON.
public struct ForecastPoint: Sendable, Equatable {
    /// Start of the hour or day, Unix seconds.
    public var time: Double
    public var summary: String?
    public var icon: WeatherIcon?
    /// The hour's temperature (hourly points).
    public var temperature: Double?
    /// The day's low and high (daily points).
    public var temperatureLow: Double?
    public var temperatureHigh: Double?
    /// Chance of precipitation, percent.
    public var precipitation: Double?
    public var precipType: String?
    public var windSpeed: Double?
    public var windDirection: Double?

    public init(time: Double, summary: String? = nil, icon: WeatherIcon? = nil, temperature: Double? = nil,
                temperatureLow: Double? = nil, temperatureHigh: Double? = nil, precipitation: Double? = nil,
                precipType: String? = nil, windSpeed: Double? = nil, windDirection: Double? = nil) {
        self.time = time
        self.summary = summary
        self.icon = icon
        self.temperature = temperature
        self.temperatureLow = temperatureLow
        self.temperatureHigh = temperatureHigh
        self.precipitation = precipitation
        self.precipType = precipType
        self.windSpeed = windSpeed
        self.windDirection = windDirection
    }

    /// Reads one element of a station line's `hourly` or `daily` array.
    public init(from object: JSONObject) throws(MessageError) {
        guard let time = try object.optionalNumber("time") else { throw MessageError("missing required field \"time\"", code: .fieldMissing) }
        self.init(time: time, summary: try object.optionalString("summary"),
                  icon: try object.optionalEnum("icon", WeatherIcon.self),
                  temperature: try object.optionalNumber("temperature"),
                  temperatureLow: try object.optionalNumber("temperatureLow"),
                  temperatureHigh: try object.optionalNumber("temperatureHigh"),
                  precipitation: try object.optionalNumber("precipitation"),
                  precipType: try object.optionalString("precipType"),
                  windSpeed: try object.optionalNumber("windSpeed"),
                  windDirection: try object.optionalNumber("windDirection"))
        try checkRanges()
    }

    /// Refuses a value outside its range, naming the field (see `Station.checkRanges`).
    func checkRanges() throws(MessageError) {
        try WeatherRanges.check(percent: precipitation, "precipitation")
        try WeatherRanges.check(speed: windSpeed, "windSpeed")
        try WeatherRanges.check(direction: windDirection, "windDirection")
        try WeatherRanges.check(temperature: temperature, "temperature")
        try WeatherRanges.check(temperature: temperatureLow, "temperatureLow")
        try WeatherRanges.check(temperature: temperatureHigh, "temperatureHigh")
    }

    /// Writes the point as one JSON object, known values only.
    public func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("time"); out.number(time)
        if let summary { out.key("summary"); out.string(summary) }
        if let icon { out.key("icon"); out.string(icon.rawValue) }
        if let temperature { out.key("temperature"); out.number(temperature) }
        if let temperatureLow { out.key("temperatureLow"); out.number(temperatureLow) }
        if let temperatureHigh { out.key("temperatureHigh"); out.number(temperatureHigh) }
        if let precipitation { out.key("precipitation"); out.number(precipitation) }
        if let precipType { out.key("precipType"); out.string(precipType) }
        if let windSpeed { out.key("windSpeed"); out.number(windSpeed) }
        if let windDirection { out.key("windDirection"); out.number(windDirection) }
        out.objectEnd()
    }

    func add(to hash: inout FNV1a) {
        hash.add(time)
        hash.add(summary ?? "\u{0}")
        hash.add(icon?.rawValue ?? "\u{0}")
        for value in [temperature, temperatureLow, temperatureHigh, precipitation, windSpeed, windDirection] { hash.add(value) }
        hash.add(precipType ?? "\u{0}")
    }
}
