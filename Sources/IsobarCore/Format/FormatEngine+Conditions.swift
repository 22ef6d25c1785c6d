/// The formatter's side of `weather` (the "tap anywhere" and "city detail" screens): `ambient`
/// becomes `conditions` (the place's name, the nearest station in reach with its distance, its
/// callout lines and an AirVisual-style `current` block of plain numbers), and a `particulars`
/// that carries a place becomes a `report` under the place's name. In the client's field, units
/// and locale, as callouts are written.
extension FormatEngine {
    func conditions(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        let day = try object.optionalEnum("day", Day.self) ?? .today
        let titles = TitleFormatter(try Presentation(from: object).resolved(defaults))
        let anchor = try Anchor(from: object)
        var station: Station?
        if let field = object.field("station"), field.kind != .null {
            guard let stationObject = object.object(field) else { throw MessageError("field \"station\" must be an object or null") }
            station = try Station(from: stationObject)
        }
        guard station == nil || anchor.reach != nil else { throw MessageError("a station needs \"distanceKm\" and \"bearing\"") }
        let title = anchor.place?.name ?? station.map { $0.name.isEmpty ? $0.id : $0.name } ?? titles.coordinateText(anchor.point)
        var answering: Conditions.Answering?
        let subtitle: String
        if let station, let reach = anchor.reach {
            subtitle = Self.stationLine(station, distanceKm: reach.distanceKm, titles: titles, day: day)
            answering = Conditions.Answering(station: station, details: titles.details(station, day: day, zone: zone(of: station)))
        } else {
            subtitle = Self.noStation(within: anchor.radiusKm, titles: titles) + " · " + titles.dayLabel(day)
        }
        Conditions(client: client, day: day, presentation: titles.presentation, anchor: anchor, title: title, subtitle: subtitle,
                   answering: answering, current: Conditions.Current(place: anchor.place, station: station, titles: titles),
                   snapshot: try SnapshotInfo(from: object)).write(to: &out)
    }

    /// A `report`'s title, subtitle, coordinate and lines: the callout's, or, when the filter's
    /// `particulars` answers a `weather` request (it carries `point`), under the place's name (the
    /// point's coordinates when no place was named) with the station and its distance as the
    /// subtitle, and the point, radius, place and distance members of `conditions` (the anchor).
    func reportHeading(_ object: JSONObject, station: Station, titles: TitleFormatter, day: Day)
        throws(MessageError) -> (Callout.Content, Anchor?) {
        var content = calloutContent(station, titles: titles, day: day)
        guard object.field("point") != nil else { return (content, nil) }
        let anchor = try Anchor(from: object)
        guard let reach = anchor.reach else { throw MessageError("a station needs \"distanceKm\" and \"bearing\"") }
        content.title = anchor.place?.name ?? titles.coordinateText(anchor.point)
        content.subtitle = Self.stationLine(station, distanceKm: reach.distanceKm, titles: titles, day: day)
        return (content, anchor)
    }

    /// "Gimpo (RKSS) · 14.2 km · Today": the station answering for a place, how far it is (km, or
    /// miles in imperial units) and the day.
    static func stationLine(_ station: Station, distanceKm: Double, titles: TitleFormatter, day: Day) -> String {
        let name = station.name.isEmpty || station.name == station.id ? station.id : "\(station.name) (\(station.id))"
        let distance = titles.presentation.units == .metric
            ? titles.phrases.number(distanceKm, digits: 1) + " km"
            : titles.phrases.number(distanceKm * 0.621_371_192, digits: 1) + " mi"
        return name + " · " + distance + " · " + titles.dayLabel(day)
    }

    /// "no station within 50 km" ("žiadna stanica do 50 km"): the radius with the decimals it was
    /// given (up to one), in the client's locale.
    static func noStation(within radiusKm: Double, titles: TitleFormatter) -> String {
        let radius = titles.phrases.number(radiusKm, digits: radiusKm == radiusKm.rounded() ? 0 : 1) + " km"
        switch titles.presentation.locale {
        case .en: return "no station within " + radius
        case .sk: return "žiadna stanica do " + radius
        }
    }

    /// Where a `weather` answer is: the point, the station radius, the named place and, when a
    /// station is in reach, its distance and bearing from the point.
    struct Anchor {
        var point: Coordinate
        var radiusKm: Double
        var place: Place?
        var placeDistanceKm: Double?
        var reach: (distanceKm: Double, bearing: Double)?

        init(from object: JSONObject) throws(MessageError) {
            point = try Coordinate(from: object.requireObject("point"))
            radiusKm = try WeatherRequest.radius(object)
            place = try Spot.place(object)
            placeDistanceKm = try object.optionalNumber("placeDistanceKm")
            let distance = try object.optionalNumber("distanceKm")
            let bearing = try object.optionalNumber("bearing")
            if let distance, let bearing {
                guard distance >= 0 else { throw MessageError("field \"distanceKm\" must be a non-negative number") }
                guard (0..<360).contains(bearing) else { throw MessageError("field \"bearing\" must be a number in [0, 360)") }
                reach = (distance, bearing)
            }
        }

        func writeMembers(to out: inout JSONWriter) {
            out.key("point"); point.write(to: &out)
            out.key("radiusKm"); out.number(radiusKm)
            out.key("place"); if let place { place.write(to: &out) } else { out.null() }
            out.key("placeDistanceKm"); out.number(place == nil ? nil : placeDistanceKm)
            if let reach {
                out.key("distanceKm"); out.number(reach.distanceKm)
                out.key("bearing"); out.number(reach.bearing)
            }
        }
    }

    /// `"station":{"id","name","coordinate"}`: which station answered, in `conditions` and in a
    /// place's or pin's day of `starred`.
    static func writeStationReference(_ station: Station, into out: inout JSONWriter) {
        out.key("station")
        out.objectStart()
        out.key("id"); out.string(station.id)
        out.key("name"); out.string(station.name)
        out.key("coordinate"); station.coordinate.write(to: &out)
        out.objectEnd()
    }
}
