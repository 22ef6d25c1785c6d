/// The callout and detail-report lines of a station's optional fields, in the client's units
/// (°F/°C, mph/km/h/knots, inHg/hPa, mi/km) and locale.
extension TitleFormatter {
    /// One line per known optional field, in `StationDetails` order (PROTOCOL.md, "Formatting
    /// rules, exactly"), each with its data; times shown in `zone`.
    func detailLines(_ details: StationDetails, zone: LocalZone) -> [Callout.Line] {
        let more = phrases.more
        var lines: [Callout.Line] = []
        func add(_ label: String, _ value: String, _ key: String, _ number: Double? = nil, _ unit: String? = nil) {
            lines.append(Callout.Line(label: label, value: value, data: LineData(key: key, number: number, unit: unit)))
        }
        func degrees(_ label: String, _ key: String, _ fahrenheit: Double?) {
            guard let value = temperature(fahrenheit) else { return }
            add(label, phrases.number(value, digits: 1) + " " + temperatureUnit, key, value, temperatureUnit)
        }
        func time(_ label: String, _ key: String, _ seconds: Double?, withDate: Bool) {
            guard let seconds else { return }
            var data = LineData(key: key)
            data.time = seconds
            data.zone = zone.name
            data.local = zone.iso(seconds)
            lines.append(Callout.Line(label: label, value: UTCTime.text(seconds, withDate: withDate), data: data))
        }
        let metric = presentation.units == .metric
        degrees(more.feelsLike, "feelsLike", details.feelsLike)
        degrees(more.low, "temperatureLow", details.temperatureLow)
        degrees(more.high, "temperatureHigh", details.temperatureHigh)
        if let humidity = details.humidity { add(more.humidity, phrases.number(humidity, digits: 0) + " %", "humidity", humidity, "%") }
        if let pressure = details.pressure {
            let value = metric ? pressure : UnitFactors.inchesOfMercury(hectopascals: pressure)
            add(more.pressure, phrases.number(value, digits: metric ? 0 : 2) + (metric ? " hPa" : " inHg"), "pressure", value,
                metric ? "hPa" : "inHg")
        }
        degrees(more.dewPoint, "dewPoint", details.dewPoint)
        if let miles = details.visibility {
            let value = metric ? UnitFactors.kilometers(miles: miles) : miles
            add(more.visibility, phrases.number(value, digits: 1) + (metric ? " km" : " mi"), "visibility", value, metric ? "km" : "mi")
        }
        if let uvIndex = details.uvIndex { add(more.uvIndex, phrases.number(uvIndex, digits: 0), "uvIndex", uvIndex, "") }
        if let gust = details.windGust {
            let speed = UnitConversion.speed(mph: gust, to: presentation.windUnit)
            let unit = UnitConversion.label(presentation.windUnit)
            add(more.windGust, phrases.number(speed, digits: 1) + " " + unit, "windGust", speed, unit)
        }
        if let cover = details.cloudCover { add(more.cloudCover, phrases.number(cover, digits: 0) + " %", "cloudCover", cover, "%") }
        if let summary = details.summary { add(more.summary, summary, "summary") }
        time(more.sunrise, "sunrise", details.sunrise, withDate: false)
        time(more.sunset, "sunset", details.sunset, withDate: false)
        time(more.observed, "observedAt", details.observedAt, withDate: true)
        return lines
    }

    /// The lines of one forecast point: temperature (hourly) or low and high (daily), chance of
    /// precipitation, wind; each with its data.
    func forecastLines(_ point: ForecastPoint) -> [Callout.Line] {
        var lines: [Callout.Line] = []
        for (label, key, fahrenheit) in [(phrases.temperature, "temperature", point.temperature),
                                         (phrases.more.low, "temperatureLow", point.temperatureLow),
                                         (phrases.more.high, "temperatureHigh", point.temperatureHigh)] {
            if let value = temperature(fahrenheit) {
                lines.append(Callout.Line(label: label, value: phrases.number(value, digits: 1) + " " + temperatureUnit,
                                          data: LineData(key: key, number: value, unit: temperatureUnit)))
            }
        }
        if let chance = point.precipitation { lines.append(precipitationLine(chance, type: point.precipType)) }
        if let mph = point.windSpeed { lines.append(windLine(mph: mph, direction: point.windDirection)) }
        return lines
    }
}
