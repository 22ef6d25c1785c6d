/// Open-Meteo's `weather_code` (the WMO 4677 present-weather codes its docs list) as the model's
/// icon and a short English summary.
enum OpenMeteoWeatherCode {
    static func icon(_ code: Int, night: Bool) -> WeatherIcon? {
        switch code {
        case 0: night ? .clearNight : .clearDay
        case 1, 2: night ? .partlyCloudyNight : .partlyCloudyDay
        case 3: .cloudy
        case 45, 48: .fog
        case 56, 57, 66, 67: .sleet
        case 51...55, 61...65, 80...82: .rain
        case 71...77, 85, 86: .snow
        case 95, 96, 99: .thunderstorm
        default: nil
        }
    }

    static func summary(_ code: Int) -> String? {
        switch code {
        case 0: "Clear sky"
        case 1: "Mainly clear"
        case 2: "Partly cloudy"
        case 3: "Overcast"
        case 45: "Fog"
        case 48: "Depositing rime fog"
        case 51, 53, 55: "Drizzle"
        case 56, 57: "Freezing drizzle"
        case 61: "Light rain"
        case 63: "Rain"
        case 65: "Heavy rain"
        case 66, 67: "Freezing rain"
        case 71: "Light snow"
        case 73: "Snow"
        case 75: "Heavy snow"
        case 77: "Snow grains"
        case 80, 81, 82: "Rain showers"
        case 85, 86: "Snow showers"
        case 95: "Thunderstorm"
        case 96, 99: "Thunderstorm with hail"
        default: nil
        }
    }

    static func precipType(_ code: Int) -> String? {
        switch code {
        case 56, 57, 66, 67: "sleet"
        case 51...55, 61...65, 80...82, 95...99: "rain"
        case 71...77, 85, 86: "snow"
        default: nil
        }
    }
}
