/// The labels of a station's optional fields in one locale (see `Phrases`).
struct MoreLabels: Sendable {
    let feelsLike, low, high, humidity, pressure, dewPoint, visibility, uvIndex, windGust, cloudCover: String
    let summary, sunrise, sunset, observed, stale: String
    /// Monday first; lowercase in Slovak, as it writes them in a sentence.
    var weekdays: [String] = []

    static let en = MoreLabels(feelsLike: "Feels like", low: "Low", high: "High", humidity: "Humidity", pressure: "Pressure",
                               dewPoint: "Dew point", visibility: "Visibility", uvIndex: "UV index", windGust: "Wind gusts",
                               cloudCover: "Cloud cover", summary: "Conditions", sunrise: "Sunrise", sunset: "Sunset",
                               observed: "Observed", stale: "stale data",
                               weekdays: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
    static let sk = MoreLabels(feelsLike: "Pocitová teplota", low: "Minimum", high: "Maximum", humidity: "Vlhkosť", pressure: "Tlak",
                               dewPoint: "Rosný bod", visibility: "Viditeľnosť", uvIndex: "UV index", windGust: "Nárazy vetra",
                               cloudCover: "Oblačnosť", summary: "Počasie", sunrise: "Východ slnka", sunset: "Západ slnka",
                               observed: "Pozorované", stale: "neaktuálne údaje",
                               weekdays: ["pondelok", "utorok", "streda", "štvrtok", "piatok", "sobota", "nedeľa"])
}
