/// Conversions from the feed's units (°F, mph).
public enum UnitConversion {
    public static func celsius(fahrenheit: Double) -> Double { UnitFactors.celsius(fahrenheit: fahrenheit) }

    /// A speed in mph in the client's wind unit (factors in `UnitFactors`).
    public static func speed(mph: Double, to unit: WindUnit) -> Double {
        switch unit {
        case .mph: mph
        case .kmh: UnitFactors.kilometersPerHour(mph: mph)
        case .knots: UnitFactors.knots(mph: mph)
        }
    }

    public static func label(_ unit: WindUnit) -> String {
        switch unit {
        case .mph: "mph"
        case .kmh: "km/h"
        case .knots: "kn"
        }
    }
}
