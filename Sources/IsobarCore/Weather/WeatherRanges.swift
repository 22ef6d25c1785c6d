/// The range checks every reader of weather values shares (station lines, forecast points), so a
/// value out of range is refused with the same words wherever it appears.
enum WeatherRanges {
    static func check(percent value: Double?, _ key: String) throws(MessageError) {
        if let value, !(0...100).contains(value) { throw MessageError("\(key) \(value) is outside [0, 100]") }
    }

    static func check(nonNegative value: Double?, _ key: String) throws(MessageError) {
        if let value, value < 0 { throw MessageError("\(key) \(value) is negative") }
    }

    static func check(direction value: Double?, _ key: String) throws(MessageError) {
        if let value, !(0...360).contains(value) { throw MessageError("\(key) \(value) is outside [0, 360]") }
    }
}
