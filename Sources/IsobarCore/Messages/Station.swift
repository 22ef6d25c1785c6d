/// One weather station's observation for one day, in the feed's units.
///
/// Unknown values stay `nil` (never 0): a blank title is the truth, a 0° title would be a lie.
public struct Station: Sendable, Equatable {
    public var id: String
    public var name: String
    public var coordinate: Coordinate
    // Values are stored as plain Doubles with NaN for "unknown" (JSON cannot carry NaN, so it can
    // never be a real value): 8 bytes each instead of an Optional's 16 with padding, which is
    // 32 MB less for a million stations. The public API is still `Double?`.
    private var storedTemperature = Double.nan
    private var storedWindSpeed = Double.nan
    private var storedWindDirection = Double.nan
    private var storedPrecipitation = Double.nan
    /// Everything beyond the four values (feels-like, humidity, … the forecast), nil when the feed
    /// has none: one reference, so an onX station pays 8 bytes for the fields it does not have.
    public var details: StationDetails?

    /// Degrees Fahrenheit.
    public var temperature: Double? {
        get { storedTemperature.isNaN ? nil : storedTemperature }
        set { storedTemperature = newValue ?? .nan }
    }
    /// Miles per hour.
    public var windSpeed: Double? {
        get { storedWindSpeed.isNaN ? nil : storedWindSpeed }
        set { storedWindSpeed = newValue ?? .nan }
    }
    /// Degrees clockwise from north that the wind blows FROM; 0 and 360 both mean north.
    public var windDirection: Double? {
        get { storedWindDirection.isNaN ? nil : storedWindDirection }
        set { storedWindDirection = newValue ?? .nan }
    }
    /// Chance of precipitation, percent 0...100.
    public var precipitation: Double? {
        get { storedPrecipitation.isNaN ? nil : storedPrecipitation }
        set { storedPrecipitation = newValue ?? .nan }
    }

    public init(id: String, name: String, coordinate: Coordinate, temperature: Double? = nil,
                windSpeed: Double? = nil, windDirection: Double? = nil, precipitation: Double? = nil, details: StationDetails? = nil) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.temperature = temperature
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.precipitation = precipitation
        // No optional value at all is no details: what a reader of the station line gets back (a
        // Dark Sky answer without any of them made an empty one; found by the feeds fuzzer).
        self.details = details?.isEmpty == false ? details : nil
    }

    public static func == (a: Station, b: Station) -> Bool {
        a.id == b.id && a.name == b.name && a.coordinate == b.coordinate && a.temperature == b.temperature
            && a.windSpeed == b.windSpeed && a.windDirection == b.windDirection && a.precipitation == b.precipitation
            && a.details == b.details
    }

    /// Reads the station members of a `station` message or of an element of a `visible` upsert.
    public init(from object: JSONObject) throws(MessageError) {
        id = try object.requireName("id")
        name = try object.optionalString("name") ?? ""
        coordinate = try Coordinate(from: object)
        temperature = try object.optionalNumber("temperature")
        windSpeed = try object.optionalNumber("windSpeed")
        windDirection = try object.optionalNumber("windDirection")
        precipitation = try object.optionalNumber("precipitation")
        details = try StationDetails.read(from: object)
        try checkRanges()
    }

    /// Refuses a value outside its range, naming the field: what every reader of a station line
    /// checks, and what fetch checks of each record so it never publishes a line readers refuse.
    public func checkRanges() throws(MessageError) {
        try WeatherRanges.check(temperature: temperature, "temperature")
        try WeatherRanges.check(speed: windSpeed, "windSpeed")
        if let direction = windDirection, !(0...360).contains(direction) {
            throw MessageError("windDirection \(direction) is outside [0, 360]", code: .outOfRange)
        }
        if let chance = precipitation, !(0...100).contains(chance) {
            throw MessageError("precipitation \(chance) is outside [0, 100]", code: .outOfRange)
        }
        try details?.validate()
    }

    /// Writes the station's members (not the braces) so callers can add their own around them.
    public func writeMembers(to writer: inout JSONWriter) {
        // After the first value, each key with its comma as one constant run (`continuing`): a
        // `key` call was ~115 instructions, and these are most of a station's first write.
        writer.key("id"); writer.string(id)
        writer.continuing(",\"name\":"); writer.string(name)
        writer.continuing(",\"latitude\":"); writer.number(coordinate.latitude)
        writer.continuing(",\"longitude\":"); writer.number(coordinate.longitude)
        writer.continuing(",\"temperature\":"); writer.number(temperature)
        writer.continuing(",\"windSpeed\":"); writer.number(windSpeed)
        writer.continuing(",\"windDirection\":"); writer.number(windDirection)
        writer.continuing(",\"precipitation\":"); writer.number(precipitation)
    }

    /// `"icon":…` when the feed gives one (a `visible` item's, after `writeMembers`): what the
    /// `conditions` field shows. Nothing for a station without one.
    @inline(__always)
    public func writeIcon(to writer: inout JSONWriter) {
        if let icon = details?.icon { writer.key("icon"); writer.string(icon.rawValue) }
    }

    /// Writes the known optional fields (see `StationDetails`) after `writeMembers`: on `station`
    /// lines and wherever a client gets everything about one station, not on the hot `visible` path.
    public func writeDetails(to writer: inout JSONWriter) {
        details?.writeMembers(to: &writer)
    }

    /// A 64-bit fingerprint of everything a client can see of the station, to detect changes
    /// between snapshots without keeping old copies.
    public var fingerprint: UInt64 {
        var hash = FNV1a()
        hash.add(id)
        hash.add(name)
        hash.add(coordinate.latitude)
        hash.add(coordinate.longitude)
        hash.add(temperature)
        hash.add(windSpeed)
        hash.add(windDirection)
        hash.add(precipitation)
        // Only stations with details hash them, so an onX station's fingerprint (and every
        // snapshot id of an onX feed) is what it was before details existed.
        details?.add(to: &hash)
        return hash.value
    }
}
