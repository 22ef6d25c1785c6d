/// The `conditions` field's side of the icon vocabulary: each icon's place in PROTOCOL.md's list
/// (a cluster's tie-break) and its short condition word, the annotation's title.
extension WeatherIcon {
    /// The icon's position in the vocabulary as PROTOCOL.md lists it (clear-day 0 … hail 11).
    @inline(__always)
    var ordinal: Int {
        switch self {
        case .clearDay: 0
        case .clearNight: 1
        case .partlyCloudyDay: 2
        case .partlyCloudyNight: 3
        case .cloudy: 4
        case .rain: 5
        case .sleet: 6
        case .snow: 7
        case .wind: 8
        case .fog: 9
        case .thunderstorm: 10
        case .hail: 11
        }
    }

    /// The short condition word a `conditions` title shows ("Partly cloudy", "Polojasno"): day and
    /// night share a word (the icon tells them apart).
    public func word(_ locale: Locale) -> String {
        switch locale {
        case .en:
            switch self {
            case .clearDay, .clearNight: "Clear"
            case .partlyCloudyDay, .partlyCloudyNight: "Partly cloudy"
            case .cloudy: "Cloudy"
            case .rain: "Rain"
            case .sleet: "Sleet"
            case .snow: "Snow"
            case .wind: "Windy"
            case .fog: "Fog"
            case .thunderstorm: "Thunderstorm"
            case .hail: "Hail"
            }
        case .sk:
            switch self {
            case .clearDay, .clearNight: "Jasno"
            case .partlyCloudyDay, .partlyCloudyNight: "Polojasno"
            case .cloudy: "Zamračené"
            case .rain: "Dážď"
            case .sleet: "Dážď so snehom"
            case .snow: "Sneh"
            case .wind: "Veterno"
            case .fog: "Hmla"
            case .thunderstorm: "Búrka"
            case .hail: "Krupobitie"
            }
        }
    }
}
