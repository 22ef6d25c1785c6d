/// Conversions from the feed's units (°F, mph).
public enum UnitConversion {
    public static func celsius(fahrenheit: Double) -> Double { (fahrenheit - 32) * 5 / 9 }

    /// 1 mile = 1.609344 km exactly; 1 knot = 1.852 km/h exactly.
    public static func speed(mph: Double, to unit: WindUnit) -> Double {
        switch unit {
        case .mph: mph
        case .kmh: mph * 1.609344
        case .knots: mph * 1.609344 / 1.852
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
