/// Every unit conversion Isobar does, written once: feeds are converted into the model's units
/// (°F, mph, miles, hPa) when parsed, and the formatter converts out of them for each client.
///
/// The factors are exact by definition: 1 mile = 1609.344 m, 1 mph = 0.44704 m/s,
/// 1 knot = 1852 m/h, 0 °C = 273.15 K, and 1 inHg = 33.86388640341 hPa (25.4 mm of mercury at
/// 13595.1 kg/m³ under standard gravity 9.80665 m/s², NIST SP 811 appendix B).
public enum UnitFactors {
    public static let metersPerMile = 1609.344
    public static let kilometersPerMile = 1.609344
    public static let metersPerSecondPerMph = 0.44704
    public static let kilometersPerNauticalMile = 1.852
    public static let hectopascalsPerInchOfMercury = 33.86388640341

    /// Kelvin to degrees Fahrenheit.
    public static func fahrenheit(kelvin: Double) -> Double { (kelvin - 273.15) * 9 / 5 + 32 }
    /// Degrees Celsius to degrees Fahrenheit.
    public static func fahrenheit(celsius: Double) -> Double { celsius * 9 / 5 + 32 }
    /// Degrees Fahrenheit to degrees Celsius.
    public static func celsius(fahrenheit: Double) -> Double { (fahrenheit - 32) * 5 / 9 }

    /// Metres per second to miles per hour.
    public static func mph(metersPerSecond: Double) -> Double { metersPerSecond / metersPerSecondPerMph }
    /// Kilometres per hour to miles per hour.
    public static func mph(kilometersPerHour: Double) -> Double { kilometersPerHour / kilometersPerMile }
    /// Knots to miles per hour.
    public static func mph(knots: Double) -> Double { knots * kilometersPerNauticalMile / kilometersPerMile }
    /// Miles per hour to kilometres per hour.
    public static func kilometersPerHour(mph: Double) -> Double { mph * kilometersPerMile }
    /// Miles per hour to knots.
    public static func knots(mph: Double) -> Double { mph * kilometersPerMile / kilometersPerNauticalMile }

    /// Metres to miles.
    public static func miles(meters: Double) -> Double { meters / metersPerMile }
    /// Kilometres to miles.
    public static func miles(kilometers: Double) -> Double { kilometers / kilometersPerMile }
    /// Miles to kilometres.
    public static func kilometers(miles: Double) -> Double { miles * kilometersPerMile }

    /// Hectopascals (millibars) to inches of mercury.
    public static func inchesOfMercury(hectopascals: Double) -> Double { hectopascals / hectopascalsPerInchOfMercury }
    /// Inches of mercury to hectopascals.
    public static func hectopascals(inchesOfMercury: Double) -> Double { inchesOfMercury * hectopascalsPerInchOfMercury }
}
