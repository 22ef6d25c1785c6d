/// The units a feed's numbers come in, and their conversion into the model's (°F, mph, miles):
/// every parser states its feed's units here and converts through `UnitFactors`.
///
/// A converted value is rounded to 6 decimals (`rounded6`, ties away from zero): 280.32 K is
/// 44.906 °F, not the 44.90600000000003 that double arithmetic gives, and a millionth of a degree
/// or a mile is far below what any station measures. Values already in the model's unit are
/// passed through untouched.
struct FeedUnits: Sendable, Equatable {
    enum Temperature: Sendable { case kelvin, celsius, fahrenheit }
    enum Speed: Sendable { case metersPerSecond, kilometersPerHour, mph, knots }
    enum Distance: Sendable { case meters, kilometers, miles }

    var temperature: Temperature
    var speed: Speed
    var distance: Distance

    func fahrenheit(_ value: Double?) -> Double? {
        guard let value else { return nil }
        switch temperature {
        case .kelvin: return Self.rounded6(UnitFactors.fahrenheit(kelvin: value))
        case .celsius: return Self.rounded6(UnitFactors.fahrenheit(celsius: value))
        case .fahrenheit: return value
        }
    }

    func mph(_ value: Double?) -> Double? {
        guard let value else { return nil }
        switch speed {
        case .metersPerSecond: return Self.rounded6(UnitFactors.mph(metersPerSecond: value))
        case .kilometersPerHour: return Self.rounded6(UnitFactors.mph(kilometersPerHour: value))
        case .knots: return Self.rounded6(UnitFactors.mph(knots: value))
        case .mph: return value
        }
    }

    func miles(_ value: Double?) -> Double? {
        guard let value else { return nil }
        switch distance {
        case .meters: return Self.rounded6(UnitFactors.miles(meters: value))
        case .kilometers: return Self.rounded6(UnitFactors.miles(kilometers: value))
        case .miles: return value
        }
    }

    /// `value` rounded to 6 decimals, ties away from zero; -0 becomes 0.
    static func rounded6(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 + 0.0 }
}
