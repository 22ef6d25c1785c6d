/// `{"type":"conditions",...}`: the client contract's answer to `weather` (the "tap anywhere" and
/// "city detail" screens, the formatter's form of `ambient`): the place's name, the nearest station
/// in reach with its distance, its callout lines, and an AirVisual-style `current` block of plain
/// numbers, in the client's field, units and locale.
struct Conditions {
    /// The station answering for the point (one is in reach), with its callout lines as shown.
    struct Answering {
        var station: Station
        var details: [Callout.Line]
    }

    /// `"current":{…}`: AirVisual's `nearest_city` answer as plain numbers in the client's units
    /// (temperature in °F or °C, wind in its wind unit, humidity in %, pressure in hPa), null where unknown.
    struct Current {
        var city: String?
        var state: String?
        var country: String?
        var countryCode: String?
        var temperature: Double?
        var humidity: Double?
        var pressure: Double?
        var windSpeed: Double?
        var windDirection: Double?

        /// The block for `place` and the answering `station`, in `titles`' units.
        init(place: Place?, station: Station?, titles: TitleFormatter) {
            city = place?.name
            state = place?.admin1
            country = place?.country
            countryCode = place?.countryCode
            temperature = titles.temperature(station?.temperature)
            humidity = station?.details?.humidity
            pressure = station?.details?.pressure
            windSpeed = station?.windSpeed.map { UnitConversion.speed(mph: $0, to: titles.presentation.windUnit) }
            windDirection = station?.windDirection
        }

        func write(to out: inout JSONWriter) {
            out.key("current")
            out.objectStart()
            out.key("city"); out.string(city)
            out.key("state"); out.string(state)
            out.key("country"); out.string(country)
            out.key("countryCode"); out.string(countryCode)
            out.key("temperature"); out.number(temperature)
            out.key("humidity"); out.number(humidity)
            out.key("pressure"); out.number(pressure)
            out.key("windSpeed"); out.number(windSpeed)
            out.key("windDirection"); out.number(windDirection)
            out.objectEnd()
        }
    }

    var client: String
    var day: Day
    var presentation: ResolvedPresentation
    /// Where the answer is: the point, the radius, the named place and the station's reach.
    var anchor: FormatEngine.Anchor
    var title: String
    var subtitle: String
    /// Nil when no station is in reach (`"station":null`, no details).
    var answering: Answering?
    var current: Current
    var snapshot: SnapshotInfo

    func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("conditions")
        out.key("client"); out.string(client)
        out.key("day"); out.string(day.rawValue)
        presentation.write(to: &out)
        anchor.writeMembers(to: &out)
        out.key("title"); out.string(title)
        out.key("subtitle"); out.string(subtitle)
        if let answering {
            FormatEngine.writeStationReference(answering.station, into: &out)
            Callout.Line.writeDetails(answering.details, to: &out)
            if let icon = answering.station.details?.icon { out.key("icon"); out.string(icon.rawValue) }
        } else {
            out.key("station"); out.null()
            out.key("details"); out.arrayStart(); out.arrayEnd()
        }
        current.write(to: &out)
        snapshot.writeMembers(to: &out)
        out.objectEnd()
        out.newline()
    }
}
