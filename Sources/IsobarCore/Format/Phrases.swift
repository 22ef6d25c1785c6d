/// The words of titles and callouts in each supported locale. One shared instance a locale (a
/// class: a `TitleFormatter`, made for every `visible` line the formatter answers, holds a
/// reference instead of copying and releasing some thirty strings each time).
final class Phrases: Sendable {
    let calm: String
    let temperature: String
    let wind: String
    let precipitation: String
    let coordinates: String
    let station: String
    let stations: @Sendable (Int) -> String
    let from: String
    let today: String
    let tomorrow: String
    let decimalSeparator: Character
    let north: String, south: String, east: String, west: String
    /// Labels of the optional fields (callout, detail report), in `StationDetails` order.
    let more: MoreLabels
    /// The days of the week, Monday first (a forecast day's `weekday`).
    var weekdays: [String] { more.weekdays }

    private init(calm: String, temperature: String, wind: String, precipitation: String, coordinates: String, station: String,
                 stations: @escaping @Sendable (Int) -> String, from: String, today: String, tomorrow: String,
                 decimalSeparator: Character, north: String, south: String, east: String, west: String, more: MoreLabels) {
        self.calm = calm
        self.temperature = temperature
        self.wind = wind
        self.precipitation = precipitation
        self.coordinates = coordinates
        self.station = station
        self.stations = stations
        self.from = from
        self.today = today
        self.tomorrow = tomorrow
        self.decimalSeparator = decimalSeparator
        self.north = north
        self.south = south
        self.east = east
        self.west = west
        self.more = more
    }

    private static let en = Phrases(calm: "calm", temperature: "Temperature", wind: "Wind", precipitation: "Chance of precipitation",
                                    coordinates: "Coordinates", station: "Station", stations: { $0 == 1 ? "1 station" : "\($0) stations" },
                                    from: "from", today: "Today", tomorrow: "Tomorrow", decimalSeparator: ".",
                                    north: "N", south: "S", east: "E", west: "W", more: .en)
    private static let sk = Phrases(calm: "bezvetrie", temperature: "Teplota", wind: "Vietor", precipitation: "Pravdepodobnosť zrážok",
                                    coordinates: "Súradnice", station: "Stanica",
                                    stations: { n in n == 1 ? "1 stanica" : (2...4).contains(n) ? "\(n) stanice" : "\(n) staníc" },
                                    from: "od", today: "Dnes", tomorrow: "Zajtra", decimalSeparator: ",",
                                    north: "s. š.", south: "j. š.", east: "v. d.", west: "z. d.", more: .sk)

    static func of(_ locale: Locale) -> Phrases {
        switch locale {
        case .en: return en
        case .sk: return sk
        }
    }

    /// `value` with `digits` decimals and the locale's decimal separator.
    func number(_ value: Double, digits: Int) -> String {
        // Beyond 1e15 (no real weather value) integer arithmetic could overflow: Swift's own
        // shortest form instead, never a crash on a hostile or broken feed's value.
        guard abs(value) < 1e15 else { return value.isFinite ? "\(value)" : "" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        var rounded = (value * scale).rounded() / scale
        if rounded == 0 { rounded = 0 }  // no "-0"
        var text: String
        if digits == 0 {
            text = String(Int(rounded))
        } else {
            let negative = rounded < 0
            let units = Int((abs(rounded) * scale).rounded())
            let whole = units / Int(scale)
            var fraction = String(units % Int(scale))
            while fraction.count < digits { fraction = "0" + fraction }
            text = (negative ? "-" : "") + String(whole) + String(decimalSeparator) + fraction
        }
        return text
    }
}
