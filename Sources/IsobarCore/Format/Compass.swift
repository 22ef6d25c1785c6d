/// Wind direction helpers. Feed directions are degrees the wind blows FROM (meteorological
/// convention); 0 and 360 both mean north.
public enum Compass {
    static let englishPoints = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE",
                                "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"]
    /// Slovak: sever, východ, juh, západ.
    static let slovakPoints = ["S", "SSV", "SV", "VSV", "V", "VJV", "JV", "JJV",
                               "J", "JJZ", "JZ", "ZJZ", "Z", "ZSZ", "SZ", "SSZ"]
    /// Arrows for the direction the wind blows TO, by 45° sector starting at north.
    static let arrows = ["↑", "↗", "→", "↘", "↓", "↙", "←", "↖"]

    /// Normalises any angle to [0, 360).
    public static func normalized(_ degrees: Double) -> Double {
        let value = degrees.truncatingRemainder(dividingBy: 360)
        return value < 0 ? value + 360 : value
    }

    /// The 16-point compass name of the direction the wind blows FROM.
    public static func point(from degrees: Double, locale: Locale = .en) -> String {
        let index = Int((normalized(degrees) / 22.5).rounded()) % 16
        return (locale == .sk ? slovakPoints : englishPoints)[index]
    }

    /// Clockwise degrees from north of where the wind blows TO: what an arrow should point at.
    public static func rotation(from degrees: Double) -> Double {
        normalized(degrees + 180)
    }

    /// An arrow pointing where the wind blows TO.
    public static func arrow(from degrees: Double) -> String {
        arrows[Int((rotation(from: degrees) / 45).rounded()) % 8]
    }
}
