/// The words of titles and callouts in each supported locale.
struct Phrases: Sendable {
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

    static func of(_ locale: Locale) -> Phrases {
        switch locale {
        case .en:
            return Phrases(calm: "calm", temperature: "Temperature", wind: "Wind", precipitation: "Chance of precipitation",
                           coordinates: "Coordinates", station: "Station", stations: { $0 == 1 ? "1 station" : "\($0) stations" },
                           from: "from", today: "Today", tomorrow: "Tomorrow", decimalSeparator: ".",
                           north: "N", south: "S", east: "E", west: "W", more: .en)
        case .sk:
            return Phrases(calm: "bezvetrie", temperature: "Teplota", wind: "Vietor", precipitation: "Pravdepodobnosť zrážok",
                           coordinates: "Súradnice", station: "Stanica",
                           stations: { n in n == 1 ? "1 stanica" : (2...4).contains(n) ? "\(n) stanice" : "\(n) staníc" },
                           from: "od", today: "Dnes", tomorrow: "Zajtra", decimalSeparator: ",",
                           north: "s. š.", south: "j. š.", east: "v. d.", west: "z. d.", more: .sk)
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
