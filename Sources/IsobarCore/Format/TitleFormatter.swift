/// Turns station values into the text a map shows, in the client's field, units and locale.
public struct TitleFormatter: Sendable {
    public let presentation: ResolvedPresentation
    let phrases: Phrases

    public init(_ presentation: ResolvedPresentation) {
        self.presentation = presentation
        phrases = Phrases.of(presentation.locale)
    }

    /// The annotation title: "46°", "7 mph W →", "calm", "40%", "Rain", or "" when the value is unknown.
    public func title(temperature: Double?, windSpeed: Double?, windDirection: Double?, precipitation: Double?,
                      icon: WeatherIcon? = nil) -> String {
        switch presentation.field {
        case .conditions:
            return icon?.word(presentation.locale) ?? ""
        case .temperature:
            guard let value = self.temperature(temperature) else { return "" }
            return phrases.number(value, digits: 0) + "°"
        case .precipitation:
            guard let precipitation else { return "" }
            return phrases.number(precipitation, digits: 0) + "%"
        case .wind:
            guard let mph = windSpeed else { return "" }
            let speed = UnitConversion.speed(mph: mph, to: presentation.windUnit)
            let rounded = phrases.number(speed, digits: 0)
            if rounded == "0" { return phrases.calm }
            var text = rounded + " " + UnitConversion.label(presentation.windUnit)
            if let direction = windDirection {
                text += " " + Compass.point(from: direction, locale: presentation.locale) + " " + Compass.arrow(from: direction)
            }
            return text
        }
    }

    /// Writes `title(…)` as a JSON string value (its key already written). The temperature
    /// field's title, the default and commonest, is written digit by digit as
    /// `phrases.number(_:digits: 0)` spells it (no decimal separator, so every locale alike), then
    /// "°", instead of built as a `String` and then copied.
    func writeTitle(temperature: Double?, windSpeed: Double?, windDirection: Double?, precipitation: Double?,
                    icon: WeatherIcon?, into out: inout JSONWriter) {
        if presentation.field == .temperature, let value = self.temperature(temperature), abs(value) < 1e15 {
            out.continuing("\"")
            out.int(Int(value.rounded()))  // -0 is 0, as `number` writes it
            out.continuing("°\"")
            return
        }
        out.string(title(temperature: temperature, windSpeed: windSpeed, windDirection: windDirection, precipitation: precipitation,
                         icon: icon))
    }

    public func title(_ station: Station) -> String {
        title(temperature: station.temperature, windSpeed: station.windSpeed,
              windDirection: station.windDirection, precipitation: station.precipitation, icon: station.details?.icon)
    }

    /// The temperature in the presentation's unit.
    public func temperature(_ fahrenheit: Double?) -> Double? {
        guard let fahrenheit else { return nil }
        return presentation.units == .metric ? UnitConversion.celsius(fahrenheit: fahrenheit) : fahrenheit
    }

    public var temperatureUnit: String { presentation.units == .metric ? "°C" : "°F" }

    /// Wind details for graphical clients: converted speed, compass point (from), arrow and
    /// rotation (to). Direction keys are omitted when the direction is unknown or the air is calm.
    public func writeWind(speed mph: Double?, direction: Double?, into out: inout JSONWriter) {
        guard let wind = wind(speed: mph, direction: direction) else { return }
        out.key("wind")
        wind.write(to: &out)
    }

    /// An annotation's wind value: the speed in the client's unit to 0.1, calm when it rounds to 0,
    /// and otherwise where it blows from and to (nil when the speed is unknown).
    public func wind(speed mph: Double?, direction: Double?) -> Annotations.Wind? {
        guard let mph else { return nil }
        let speed = UnitConversion.speed(mph: mph, to: presentation.windUnit)
        let calm = phrases.number(speed, digits: 0) == "0"
        var wind = Annotations.Wind(speed: (speed * 10).rounded() / 10, unit: UnitConversion.label(presentation.windUnit), calm: calm)
        if let direction, !calm {
            wind.from = Compass.point(from: direction, locale: presentation.locale)
            wind.fromDegrees = Compass.normalized(direction)
            wind.to = Compass.point(from: Compass.rotation(from: direction), locale: presentation.locale)
            wind.arrow = Compass.arrow(from: direction)
            wind.rotation = Compass.rotation(from: direction)
        }
        return wind
    }

    /// The wind text of a callout line: calm, or speed with its unit and where it blows from.
    func windText(mph: Double, direction: Double?) -> String {
        let speed = UnitConversion.speed(mph: mph, to: presentation.windUnit)
        if phrases.number(speed, digits: 0) == "0" { return phrases.calm }
        var text = phrases.number(speed, digits: 1) + " " + UnitConversion.label(presentation.windUnit)
        if let direction {
            text += " " + phrases.from + " " + Compass.point(from: direction, locale: presentation.locale)
                + " (" + phrases.number(Compass.normalized(direction), digits: 0) + "°) " + Compass.arrow(from: direction)
        }
        return text
    }

    /// Callout detail lines for every known value, with units, each with its data (times in `zone`).
    public func details(_ station: Station, day: Day, zone: LocalZone = .utc) -> [Callout.Line] {
        var lines: [Callout.Line] = []
        if let value = temperature(station.temperature) {
            lines.append(Callout.Line(label: phrases.temperature, value: phrases.number(value, digits: 1) + " " + temperatureUnit,
                                      data: LineData(key: "temperature", number: value, unit: temperatureUnit)))
        }
        if let mph = station.windSpeed {
            lines.append(windLine(mph: mph, direction: station.windDirection))
        }
        if let precipitation = station.precipitation {
            lines.append(precipitationLine(precipitation, type: station.details?.precipType))
        }
        if let details = station.details { lines += detailLines(details, zone: zone) }
        var coordinates = LineData(key: "coordinates")
        coordinates.coordinate = station.coordinate
        lines.append(Callout.Line(label: phrases.coordinates, value: coordinateText(station.coordinate), data: coordinates))
        return lines
    }

    /// The wind line: its text (`windText`) and data (speed in the client's unit, calm, direction).
    func windLine(mph: Double, direction: Double?) -> Callout.Line {
        let speed = UnitConversion.speed(mph: mph, to: presentation.windUnit)
        var data = LineData(key: "windSpeed", number: speed, unit: UnitConversion.label(presentation.windUnit))
        data.calm = phrases.number(speed, digits: 0) == "0"
        data.direction = direction.map(Compass.normalized)
        return Callout.Line(label: phrases.wind, value: windText(mph: mph, direction: direction), data: data)
    }

    /// The chance-of-precipitation line, with the feed's precipitation type beside it when known.
    func precipitationLine(_ chance: Double, type: String?) -> Callout.Line {
        var data = LineData(key: "precipitation", number: chance, unit: "%")
        data.precipType = type
        return Callout.Line(label: phrases.precipitation, value: phrases.number(chance, digits: 0) + " %", data: data)
    }

    public func coordinateText(_ coordinate: Coordinate) -> String {
        let latitude = phrases.number(abs(coordinate.latitude), digits: 4) + "° " + (coordinate.latitude < 0 ? phrases.south : phrases.north)
        let longitude = phrases.number(abs(coordinate.longitude), digits: 4) + "° " + (coordinate.longitude < 0 ? phrases.west : phrases.east)
        return latitude + ", " + longitude
    }

    public func dayLabel(_ day: Day) -> String { day == .today ? phrases.today : phrases.tomorrow }
    public func stationsLabel(_ count: Int) -> String { phrases.stations(count) }
}
