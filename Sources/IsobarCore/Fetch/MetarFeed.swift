/// Parser for METAR observations from the Aviation Weather Center (aviationweather.gov, NOAA),
/// in either of its two forms:
///
/// - the JSON of the data API, `GET /api/data/metar?ids=…&format=json` (or `bbox=…`): an array
///   of `{icaoId, name, lat, lon, obsTime (Unix s), temp, dewp (°C), wdir (degrees or "VRB"),
///   wspd, wgst (kt), visib (statute miles, or "10+"), altim, slp (hPa), wxString,
///   clouds[{cover, base}], rawOb, …}`;
/// - the cache file of every current METAR worldwide, `GET /data/cache/metars.cache.csv.gz`
///   (the fetcher inflates the gzip file): CSV with a header line `raw_text,station_id,
///   observation_time,latitude,longitude,temp_c,dewpoint_c,wind_dir_degrees,wind_speed_kt,
///   wind_gust_kt,visibility_statute_mi,altim_in_hg,sea_level_pressure_mb,…,wx_string,sky_cover,
///   cloud_base_ft_agl,…` (columns read by name; `altim_in_hg` converted to hPa; the station has
///   no name in this form, so its name is its id).
///
/// The id is the ICAO id (`KSFO`). See `MetarObservation` for how each value is mapped. A record
/// without an id or a position, or with a value of the wrong type, is rejected alone; a body that
/// is neither form is refused whole.
public enum MetarFeed {
    static let expected = "an Aviation Weather Center METAR response (a JSON array of objects with \"icaoId\", or the metars.cache.csv table)"

    public static func parse(_ body: [UInt8], stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            return try parseJSON(FeedBody(body, expected: expected), stage: stage)
        }
        return try parseCSV(body, stage: stage)
    }

    /// True when `object` is one decoded METAR of the JSON form.
    static func isResponse(_ object: JSONObject) -> Bool { object.has("icaoId") && (object.has("rawOb") || object.has("obsTime")) }

    /// True when the body is the cache CSV (its header line within the first few lines).
    static func isTable(_ body: [UInt8]) -> Bool {
        let head = String(decoding: body.prefix(4096), as: UTF8.self)
        return head.hasPrefix("raw_text,station_id") || head.contains("\nraw_text,station_id")
    }

    // MARK: - JSON

    static func parseJSON(_ body: FeedBody, stage: String) throws(MessageError) -> ParsedFeed {
        try body.require(expected, isResponse)
        return try body.collect(stage: stage) { (object: JSONObject, warnings: inout [String]) throws(MessageError) in
            try observation(object).station(warnings: &warnings)
        }
    }

    static func observation(_ object: JSONObject) throws(MessageError) -> MetarObservation {
        let id = try object.requireName("icaoId")
        var metar = MetarObservation(id: id, name: try object.optionalString("name") ?? id,
                                     latitude: try object.requireNumber("lat"), longitude: try object.requireNumber("lon"))
        metar.observedAt = try object.optionalNumber("obsTime")
        metar.temperature = try object.optionalNumber("temp")
        metar.dewPoint = try object.optionalNumber("dewp")
        if let field = object.field("wdir"), field.kind != .null {
            if field.kind == .string, object.string(field) == "VRB" {
                metar.windDirection = .variable
            } else {
                metar.windDirection = .degrees(try object.requireNumber("wdir"))
            }
        }
        metar.windSpeed = try object.optionalNumber("wspd")
        metar.windGust = try object.optionalNumber("wgst")
        if let field = object.field("visib"), field.kind != .null {
            if field.kind == .string {
                let text = object.string(field) ?? ""
                guard let miles = MetarObservation.visibility(text) else {
                    throw MessageError("field \"visib\" \"\(text.prefix(20))\" is neither a number of miles nor \"N+\"")
                }
                metar.visibility = miles
            } else {
                metar.visibility = try object.requireNumber("visib")
            }
        }
        metar.altimeter = try object.optionalNumber("altim")
        metar.seaLevelPressure = try object.optionalNumber("slp")
        metar.weather = try object.optionalString("wxString")
        metar.raw = try object.optionalString("rawOb")
        if let clouds = object.field("clouds"), clouds.kind == .array {
            for layer in object.arrayElements(clouds) where layer.kind == .object {
                if let cover = try object.object(at: layer.range).optionalString("cover") { metar.covers.append(cover) }
            }
        }
        return metar
    }

    // MARK: - CSV

    static func parseCSV(_ body: [UInt8], stage: String) throws(MessageError) -> ParsedFeed {
        guard let table = CSVTable(body, headerFirst: "raw_text") else {
            throw FeedBody.refusal(expected, "no header line starting \"raw_text,\" was found")
        }
        let columns = try Columns(table)
        var collector = FeedCollector(stage: stage)
        collector.reserve(records: table.rows.count)
        for row in table.rows {
            collector.add(excerpt: row.excerpt) { (warnings: inout [String]) throws(MessageError) in
                try columns.observation(row.fields, width: table.header.count).station(warnings: &warnings)
            }
        }
        return try collector.finish()
    }

    /// Where each value is in the cache table's rows.
    struct Columns {
        let raw, id, time, latitude, longitude: Int
        let temperature, dewPoint, direction, speed, gust, visibility, altimeter, seaLevel, weather: Int?
        let covers: [Int]

        init(_ table: CSVTable) throws(MessageError) {
            func required(_ name: String) throws(MessageError) -> Int {
                guard let index = table.column(name) else { throw FeedBody.refusal(MetarFeed.expected, "the header has no column \"\(name)\"") }
                return index
            }
            raw = try required("raw_text")
            id = try required("station_id")
            time = try required("observation_time")
            latitude = try required("latitude")
            longitude = try required("longitude")
            temperature = table.column("temp_c")
            dewPoint = table.column("dewpoint_c")
            direction = table.column("wind_dir_degrees")
            speed = table.column("wind_speed_kt")
            gust = table.column("wind_gust_kt")
            visibility = table.column("visibility_statute_mi")
            altimeter = table.column("altim_in_hg")
            seaLevel = table.column("sea_level_pressure_mb")
            weather = table.column("wx_string")
            covers = table.columns("sky_cover")
        }

        func observation(_ fields: [String], width: Int) throws(MessageError) -> MetarObservation {
            guard fields.count == width else { throw MessageError("has \(fields.count) fields, the header has \(width)") }
            func number(_ index: Int?, _ name: String) throws(MessageError) -> Double? {
                guard let index, !fields[index].isEmpty else { return nil }
                guard let value = CSVTable.decimal(fields[index]) else {
                    throw MessageError("\(name) \"\(fields[index].prefix(20))\" is not a number")
                }
                return value
            }
            let id = fields[self.id]
            guard let latitude = try number(latitude, "latitude"), let longitude = try number(longitude, "longitude") else {
                throw MessageError("station \(id.prefix(20)) has no position (latitude and longitude)")
            }
            var metar = MetarObservation(id: id, name: id, latitude: latitude, longitude: longitude)
            let stamp = fields[time]
            if !stamp.isEmpty {
                guard let seconds = ISOTimestamp.unixSeconds(stamp) else {
                    throw MessageError("observation_time \"\(stamp.prefix(40))\" is not an ISO 8601 UTC time (2024-07-26T12:27:00Z)")
                }
                metar.observedAt = seconds
            }
            metar.temperature = try number(temperature, "temp_c")
            metar.dewPoint = try number(dewPoint, "dewpoint_c")
            if let direction, !fields[direction].isEmpty {
                metar.windDirection = fields[direction] == "VRB" ? .variable : .degrees(try number(direction, "wind_dir_degrees") ?? 0)
            }
            metar.windSpeed = try number(speed, "wind_speed_kt")
            metar.windGust = try number(gust, "wind_gust_kt")
            if let visibility, !fields[visibility].isEmpty {
                guard let miles = MetarObservation.visibility(fields[visibility]) else {
                    throw MessageError("visibility_statute_mi \"\(fields[visibility].prefix(20))\" is neither a number of miles nor \"N+\"")
                }
                metar.visibility = miles
            }
            metar.altimeter = try number(altimeter, "altim_in_hg").map { FeedUnits.rounded6(UnitFactors.hectopascals(inchesOfMercury: $0)) }
            metar.seaLevelPressure = try number(seaLevel, "sea_level_pressure_mb")
            if let weather, !fields[weather].isEmpty { metar.weather = fields[weather] }
            metar.covers = covers.map { fields[$0] }.filter { !$0.isEmpty }
            metar.raw = fields[raw]
            return metar
        }
    }
}
