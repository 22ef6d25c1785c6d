/// Several stations shown as one annotation because the viewport holds more than the client's
/// limit. Carries the count and aggregated values (means of the known values; wind direction as
/// the direction of the mean wind vector) so a title can still say something true.
public struct Cluster: Sendable, Equatable {
    /// Bit 63 set, so cluster keys never collide with station keys.
    public var key: UInt64
    public var count: Int
    public var coordinate: Coordinate
    public var temperature: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var precipitation: Double?
    /// The most common icon among the members that report one (ties: the earlier in the
    /// vocabulary); nil when none does.
    public var icon: WeatherIcon?

    /// `cluster:<level>:<row>:<column>` of the fixed grid cell it aggregates. Stable while the
    /// client pans at one zoom, so panning moves only the clusters at the edges.
    public var id: String { Self.id(forKey: key) }

    public static func key(level: Int, row: Int, column: Int) -> UInt64 {
        1 << 63 | UInt64(level + 64) << 48 | UInt64(row) << 24 | UInt64(column)
    }

    public static func id(forKey key: UInt64) -> String {
        let level = Int((key >> 48) & 0x7F) - 64
        let row = Int((key >> 24) & 0xFF_FFFF)
        let column = Int(key & 0xFF_FFFF)
        return "cluster:\(level):\(row):\(column)"
    }

    /// Writes `id(forKey:)` as a JSON string value, without making the String (the filter writes
    /// one per cluster that enters or leaves a view).
    public static func writeID(forKey key: UInt64, into writer: inout JSONWriter) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var at = buffer.count
            func put(_ byte: UInt8) { at -= 1; buffer[at] = byte }
            func put(_ value: Int) {
                var rest = value.magnitude
                repeat { put(UInt8(ascii: "0") + UInt8(rest % 10)); rest /= 10 } while rest > 0
                if value < 0 { put(UInt8(ascii: "-")) }
            }
            put(UInt8(ascii: "\""))
            put(Int(key & 0xFF_FFFF))
            put(UInt8(ascii: ":"))
            put(Int((key >> 24) & 0xFF_FFFF))
            put(UInt8(ascii: ":"))
            put(Int((key >> 48) & 0x7F) - 64)
            for byte in "\"cluster:".utf8.reversed() { put(byte) }
            writer.raw(UnsafeBufferPointer(rebasing: buffer[at...]))
        }
    }

    public static func isCluster(_ key: UInt64) -> Bool { key & (1 << 63) != 0 }

    /// The key of a `cluster:<level>:<row>:<column>` id, nil for anything else (or out of the
    /// key's ranges: level -64...63, row and column 0..<2^24).
    public static func key(forID id: String) -> UInt64? {
        let parts = id.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "cluster", let level = Int(parts[1]), let row = Int(parts[2]), let column = Int(parts[3]),
              (-64...63).contains(level), (0..<(1 << 24)).contains(row), (0..<(1 << 24)).contains(column) else { return nil }
        return key(level: level, row: row, column: column)
    }

    public init(key: UInt64, count: Int, coordinate: Coordinate, temperature: Double? = nil, windSpeed: Double? = nil,
                windDirection: Double? = nil, precipitation: Double? = nil, icon: WeatherIcon? = nil) {
        self.key = key
        self.count = count
        self.coordinate = coordinate
        self.temperature = temperature
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.precipitation = precipitation
        self.icon = icon
    }

    /// Reads a cluster element of a `visible` upsert (the members ``writeMembers(to:)`` writes).
    public init(from object: JSONObject) throws(MessageError) {
        let id = try object.requireName("id")
        guard let key = Self.key(forID: id) else { throw MessageError("cluster id \"\(id)\" is not cluster:<level>:<row>:<column>") }
        guard let count = try object.optionalInt("count"), count > 0 else { throw MessageError("a cluster needs a positive \"count\"") }
        self.init(key: key, count: count, coordinate: try Coordinate(from: object),
                  temperature: try object.optionalNumber("temperature"), windSpeed: try object.optionalNumber("windSpeed"),
                  windDirection: try object.optionalNumber("windDirection"), precipitation: try object.optionalNumber("precipitation"),
                  icon: try object.optionalEnum("icon", WeatherIcon.self))
    }

    public var fingerprint: UInt64 {
        var hash = FNV1a()
        hash.add(key)
        hash.add(UInt64(count))
        hash.add(coordinate.latitude)
        hash.add(coordinate.longitude)
        hash.add(temperature)
        hash.add(windSpeed)
        hash.add(windDirection)
        hash.add(precipitation)
        // Only a cluster with an icon hashes it: an icon-less cluster's fingerprint is unchanged.
        if let icon { hash.add(icon.rawValue) }
        return hash.value
    }

    public func writeMembers(to writer: inout JSONWriter) {
        writer.key("id"); Self.writeID(forKey: key, into: &writer)
        writer.key("cluster"); writer.bool(true)
        writer.key("count"); writer.int(count)
        writer.key("latitude"); writer.number(coordinate.latitude)
        writer.key("longitude"); writer.number(coordinate.longitude)
        writer.key("temperature"); writer.number(temperature)
        writer.key("windSpeed"); writer.number(windSpeed)
        writer.key("windDirection"); writer.number(windDirection)
        writer.key("precipitation"); writer.number(precipitation)
        if let icon { writer.key("icon"); writer.string(icon.rawValue) }
    }
}
