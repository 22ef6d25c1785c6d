/// The callout and detail-report lines of a station's optional fields, in the client's units
/// (°F/°C, mph/km/h/knots, inHg/hPa, mi/km) and locale.
extension TitleFormatter {
    /// One line per known optional field, in `StationDetails` order (PROTOCOL.md, "Formatting
    /// rules, exactly").
    func detailLines(_ details: StationDetails) -> [(label: String, value: String)] {
        let more = phrases.more
        var lines: [(label: String, value: String)] = []
        func degrees(_ label: String, _ fahrenheit: Double?) {
            guard let value = temperature(fahrenheit) else { return }
            lines.append((label, phrases.number(value, digits: 1) + " " + temperatureUnit))
        }
        degrees(more.feelsLike, details.feelsLike)
        degrees(more.low, details.temperatureLow)
        degrees(more.high, details.temperatureHigh)
        if let humidity = details.humidity { lines.append((more.humidity, phrases.number(humidity, digits: 0) + " %")) }
        if let pressure = details.pressure {
            lines.append((more.pressure, presentation.units == .metric
                ? phrases.number(pressure, digits: 0) + " hPa"
                : phrases.number(UnitFactors.inchesOfMercury(hectopascals: pressure), digits: 2) + " inHg"))
        }
        degrees(more.dewPoint, details.dewPoint)
        if let miles = details.visibility {
            lines.append((more.visibility, presentation.units == .metric
                ? phrases.number(UnitFactors.kilometers(miles: miles), digits: 1) + " km"
                : phrases.number(miles, digits: 1) + " mi"))
        }
        if let uvIndex = details.uvIndex { lines.append((more.uvIndex, phrases.number(uvIndex, digits: 0))) }
        if let gust = details.windGust {
            lines.append((more.windGust, phrases.number(UnitConversion.speed(mph: gust, to: presentation.windUnit), digits: 1)
                + " " + UnitConversion.label(presentation.windUnit)))
        }
        if let cover = details.cloudCover { lines.append((more.cloudCover, phrases.number(cover, digits: 0) + " %")) }
        if let summary = details.summary { lines.append((more.summary, summary)) }
        if let sunrise = details.sunrise { lines.append((more.sunrise, UTCTime.text(sunrise, withDate: false))) }
        if let sunset = details.sunset { lines.append((more.sunset, UTCTime.text(sunset, withDate: false))) }
        if let observed = details.observedAt { lines.append((more.observed, UTCTime.text(observed, withDate: true))) }
        return lines
    }

    /// The lines of one forecast point: temperature (hourly) or low and high (daily), chance of
    /// precipitation, wind.
    func forecastLines(_ point: ForecastPoint) -> [(label: String, value: String)] {
        var lines: [(label: String, value: String)] = []
        for (label, fahrenheit) in [(phrases.temperature, point.temperature), (phrases.more.low, point.temperatureLow),
                                    (phrases.more.high, point.temperatureHigh)] {
            if let value = temperature(fahrenheit) { lines.append((label, phrases.number(value, digits: 1) + " " + temperatureUnit)) }
        }
        if let chance = point.precipitation { lines.append((phrases.precipitation, phrases.number(chance, digits: 0) + " %")) }
        if let mph = point.windSpeed { lines.append((phrases.wind, windText(mph: mph, direction: point.windDirection))) }
        return lines
    }
}
