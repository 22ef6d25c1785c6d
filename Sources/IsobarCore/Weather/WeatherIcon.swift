/// Isobar's one icon vocabulary, the same for every feed: Dark Sky's documented set
/// (`clear-day` … `partly-cloudy-night`) plus `thunderstorm` and `hail`, which Dark Sky reserved and
/// OpenWeather and AirVisual report. Each feed's codes are mapped onto it when parsed.
public enum WeatherIcon: String, Sendable, Equatable, CaseIterable {
    case clearDay = "clear-day"
    case clearNight = "clear-night"
    case partlyCloudyDay = "partly-cloudy-day"
    case partlyCloudyNight = "partly-cloudy-night"
    case cloudy
    case rain
    case sleet
    case snow
    case wind
    case fog
    case thunderstorm
    case hail

    /// An OpenWeather (or AirVisual, which uses the same codes) icon code such as `"10n"`: two
    /// digits for the condition, `d` or `n` for day or night (openweathermap.org/weather-conditions).
    /// nil for a code outside that list.
    public init?(openWeatherIcon code: String) {
        let bytes = Array(code.utf8)
        guard bytes.count == 3, bytes[2] == UInt8(ascii: "d") || bytes[2] == UInt8(ascii: "n") else { return nil }
        let day = bytes[2] == UInt8(ascii: "d")
        switch String(decoding: bytes[0..<2], as: UTF8.self) {
        case "01": self = day ? .clearDay : .clearNight
        case "02", "03": self = day ? .partlyCloudyDay : .partlyCloudyNight
        case "04": self = .cloudy
        case "09", "10": self = .rain
        case "11": self = .thunderstorm
        case "13": self = .snow
        case "50": self = .fog
        default: return nil
        }
    }

    /// An OpenWeather condition id (openweathermap.org/weather-conditions), which is finer than
    /// its icon: freezing rain and sleet (511, 611–616) are `sleet`, squalls and tornado (771,
    /// 781) `wind`. `night` picks the night variant of clear and partly cloudy.
    public init?(openWeatherCondition id: Int, night: Bool) {
        switch id {
        case 200..<300: self = .thunderstorm
        case 511, 611...616: self = .sleet
        case 300..<400, 500..<600: self = .rain
        case 600..<700: self = .snow
        case 771, 781: self = .wind
        case 700..<800: self = .fog
        case 800: self = night ? .clearNight : .clearDay
        case 801, 802: self = night ? .partlyCloudyNight : .partlyCloudyDay
        case 803, 804: self = .cloudy
        default: return nil
        }
    }
}
