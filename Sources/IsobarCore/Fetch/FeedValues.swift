/// The checks and conversions every feed parser applies to a record's values, written once so
/// that the four formats clamp, drop and warn in the same words.
///
/// A value out of range is not a reason to lose the station: a chance or percentage is clamped
/// into range, a negative speed or a direction outside 0...360 becomes unknown, each with a
/// data-quality warning. Only ids and coordinates reject a record.
enum FeedValues {
    /// A percentage from a value on the feed's scale (`upper` 100 for percent, 1 for a fraction),
    /// clamped into 0...upper with a warning.
    static func percent(_ value: Double?, _ key: String, upper: Double = 100, warnings: inout [String]) -> Double? {
        guard var value else { return nil }
        if !(0...upper).contains(value) {
            let clamped = min(upper, max(0, value))
            warnings.append("\(key) \(text(value)) is outside 0...\(text(upper)); clamped to \(text(clamped))")
            value = clamped
        }
        return upper == 100 ? value : FeedUnits.rounded6(value * (100 / upper))
    }

    /// A speed, visibility or index that cannot be negative; a negative one becomes unknown.
    static func nonNegative(_ value: Double?, _ key: String, warnings: inout [String]) -> Double? {
        guard let value else { return nil }
        guard value >= 0 else {
            warnings.append("\(key) \(value) is negative; treated as unknown")
            return nil
        }
        return value
    }

    /// Degrees the wind blows from; outside 0...360 it becomes unknown.
    static func direction(_ value: Double?, _ key: String, warnings: inout [String]) -> Double? {
        guard let value else { return nil }
        guard (0...360).contains(value) else {
            warnings.append("\(key) \(value) is outside 0...360; treated as unknown")
            return nil
        }
        return value
    }

    /// An IANA zone name (Dark Sky's `timezone`); one that cannot be a zone name becomes unknown
    /// (the station's times are then shown in its nearest place's zone).
    static func zoneName(_ value: String?, _ key: String, warnings: inout [String]) -> String? {
        guard let value else { return nil }
        guard StationDetails.isZoneName(value) else {
            warnings.append("\(key) \"\(value.prefix(64))\" is not a time zone name; treated as unknown")
            return nil
        }
        return value
    }

    /// An offset from UTC in seconds (OpenWeather's `timezone`); beyond ±18 hours or fractional
    /// it becomes unknown.
    static func utcOffset(_ value: Double?, _ key: String, warnings: inout [String]) -> Double? {
        guard let value else { return nil }
        guard value == value.rounded(), abs(value) <= StationDetails.maxUTCOffset else {
            warnings.append("\(key) \(text(value)) is not whole seconds within ±64800; treated as unknown")
            return nil
        }
        return value
    }

    /// A position, rejected (never wrapped) when out of range, in the words `Coordinate` uses.
    static func coordinate(latitude: Double, longitude: Double) throws(MessageError) -> Coordinate {
        guard (-90...90).contains(latitude) else { throw MessageError("latitude \(latitude) is outside [-90, 90]", code: .outOfRange) }
        guard (-180...180).contains(longitude) else { throw MessageError("longitude \(longitude) is outside [-180, 180]", code: .outOfRange) }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// An integral value as an integer ("105"), anything else as Swift prints it.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
