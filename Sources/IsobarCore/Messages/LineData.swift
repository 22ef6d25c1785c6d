/// The data beside one labelled line of a callout, report, forecast point, place or starred day
/// (PROTOCOL.md, "Data beside text"): what the line's `value` says, as numbers a client can lay
/// out, chart or round its own way. Written after `label` and `value`, in this order, each member
/// only when set: `key`, `number`, `unit`, `calm`, `direction`, `precipType`, `time`, `zone`,
/// `local`, `latitude`, `longitude`.
public struct LineData: Sendable, Equatable {
    /// The stable name of the value (`temperature`, `humidity`, `sunrise`, …), never localized.
    public var key: String
    /// The value in the client's unit, `R6`-rounded (`round(v * 1e6) / 1e6`).
    public var number: Double?
    /// `number`'s unit as the value text writes it (`°C`, `km/h`, `%`, `hPa`, `inHg`, `km`, `mi`;
    /// `""` for the UV index).
    public var unit: String?
    /// Wind: whether the value says calm.
    public var calm: Bool?
    /// Wind: where it blows from, `norm(d)` degrees.
    public var direction: Double?
    /// Chance of precipitation: `rain`, `snow` or `sleet` when the feed says.
    public var precipType: String?
    /// Times: Unix seconds, and the zone and local time (ISO 8601 with offset) they are shown in.
    public var time: Double?
    public var zone: String?
    public var local: String?
    /// Coordinates: the station's.
    public var coordinate: Coordinate?

    public init(key: String, number: Double? = nil, unit: String? = nil) {
        self.key = key
        self.number = number.map(Self.r6)
        self.unit = unit
    }

    /// Reads the members `writeMembers` writes; nil when the line has no `key` (a line without data).
    public init?(from object: JSONObject) throws(MessageError) {
        guard let key = try object.optionalString("key") else { return nil }
        self.key = key
        number = try object.optionalNumber("number")
        unit = try object.optionalString("unit")
        calm = try object.optionalBool("calm")
        direction = try object.optionalNumber("direction")
        precipType = try object.optionalString("precipType")
        time = try object.optionalNumber("time")
        zone = try object.optionalString("zone")
        local = try object.optionalString("local")
        if let latitude = try object.optionalNumber("latitude"), let longitude = try object.optionalNumber("longitude") {
            coordinate = Coordinate(latitude: latitude, longitude: longitude)
        }
    }

    /// `round(v * 1e6) / 1e6`, ties away from zero, -0 as 0.
    public static func r6(_ value: Double) -> Double {
        guard abs(value) < 1e9 else { return value + 0.0 }
        return (value * 1e6).rounded() / 1e6 + 0.0
    }

    /// The members after `value`.
    func writeMembers(to writer: inout JSONWriter) {
        writer.key("key"); writer.string(key)
        if let number { writer.key("number"); writer.number(number) }
        if let unit { writer.key("unit"); writer.string(unit) }
        if let calm { writer.key("calm"); writer.bool(calm) }
        if let direction { writer.key("direction"); writer.number(direction) }
        if let precipType { writer.key("precipType"); writer.string(precipType) }
        if let time { writer.key("time"); writer.number(time) }
        if let zone { writer.key("zone"); writer.string(zone) }
        if let local { writer.key("local"); writer.string(local) }
        if let coordinate {
            writer.key("latitude"); writer.number(coordinate.latitude)
            writer.key("longitude"); writer.number(coordinate.longitude)
        }
    }
}
