/// The range checks every reader of weather values shares (station lines, forecast points), so a
/// value out of range is refused with the same words wherever it appears.
enum WeatherRanges {
    static func check(percent value: Double?, _ key: String) throws(MessageError) {
        if let value, !(0...100).contains(value) { throw MessageError("\(key) \(value) is outside [0, 100]", code: .outOfRange) }
    }

    static func check(nonNegative value: Double?, _ key: String) throws(MessageError) {
        if let value, value < 0 { throw MessageError("\(key) \(value) is negative", code: .outOfRange) }
    }

    /// The physical range of a temperature in °F, the pipeline's unit (Earth's records are about
    /// -129 °F and 134 °F): beyond it a value is a fault or an attack, and values like ±1.8e308
    /// overflowed cluster means to null and made titles a bare "°" (issue 27).
    static let temperature: ClosedRange<Double> = -200...200
    /// The physical range of a wind speed or gust in mph (the strongest gust measured: 253 mph).
    static let speed: ClosedRange<Double> = 0...500

    static func check(temperature value: Double?, _ key: String) throws(MessageError) {
        if let value, !temperature.contains(value) {
            throw MessageError("\(key) \(value) is outside the physical range [-200, 200] °F", code: .outOfRange)
        }
    }

    static func check(speed value: Double?, _ key: String) throws(MessageError) {
        if let value, value < 0 { throw MessageError("\(key) \(value) is negative", code: .outOfRange) }
        if let value, !speed.contains(value) { throw MessageError("\(key) \(value) is outside the physical range [0, 500] mph", code: .outOfRange) }
    }

    static func check(direction value: Double?, _ key: String) throws(MessageError) {
        if let value, !(0...360).contains(value) { throw MessageError("\(key) \(value) is outside [0, 360]", code: .outOfRange) }
    }
}
