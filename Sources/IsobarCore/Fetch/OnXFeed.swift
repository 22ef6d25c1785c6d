/// Parser for the onX weather-station feed: a bare JSON array of records with the keys `id`,
/// `name`, `latitude`, `longitude`, `temperature` (°F), `wind_speed` (mph), `wind_direction`
/// (degrees from) and `chance_of_precipitation` (percent).
///
/// Null stays unknown (never 0). A record with a missing or invalid id or coordinates is rejected
/// with an error and the rest kept; out-of-range values are clamped (precipitation) or dropped to
/// unknown (negative wind, direction outside 0...360) with a data-quality warning. A body that is
/// not an array of records, or that has no valid record, is refused whole so that a broken feed
/// never replaces good data.
public enum OnXFeed {
    public typealias Parsed = ParsedFeed

    public static func parse(_ body: [UInt8], stage: String = "fetch") throws(MessageError) -> Parsed {
        var stream = OnXFeedStream(stage: stage)
        var failure: MessageError?
        body.withUnsafeBytes { raw in
            do throws(MessageError) { try stream.append(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        return try stream.finish()
    }

    /// True when `object` looks like an onX record (how `auto` recognises the format).
    static func isRecord(_ object: JSONObject) -> Bool { object.has("id", "latitude", "longitude") }

    static func record(_ object: JSONObject, warnings: inout [String]) throws(MessageError) -> Station {
        let id = try object.requireName("id")
        let name = try object.optionalString("name") ?? ""
        let coordinate = try Coordinate(from: object)
        return Station(id: id, name: name, coordinate: coordinate, temperature: try object.optionalNumber("temperature"),
                       windSpeed: FeedValues.nonNegative(try object.optionalNumber("wind_speed"), "wind_speed", warnings: &warnings),
                       windDirection: FeedValues.direction(try object.optionalNumber("wind_direction"), "wind_direction", warnings: &warnings),
                       precipitation: FeedValues.percent(try object.optionalNumber("chance_of_precipitation"), "chance_of_precipitation",
                                                         warnings: &warnings))
    }

    /// The snapshot id: a hash of the day and every station's content, so the same data always
    /// gets the same id (a replay from the store and a re-fetch are recognised as identical).
    public static func snapshotID(day: Day, stations: [Station]) -> String {
        var hash = FNV1a()
        hash.add(day.rawValue)
        // Two at a time (`Station.fingerprints`: two hash chains interleaved), in order.
        var next = 0
        while next + 1 < stations.count {
            let (a, b) = Station.fingerprints(stations[next], stations[next + 1])
            hash.add(a)
            hash.add(b)
            next += 2
        }
        if next < stations.count { hash.add(stations[next].fingerprint) }
        return day.rawValue + "-" + hash.hex
    }

    /// Writes a whole snapshot: every station (seq 0..<n) then the end marker. With `flush`, hands
    /// the writer over each time it holds `flushEvery` bytes, so a million stations are written in
    /// pieces instead of one buffer of hundreds of megabytes.
    public static func writeSnapshot(day: Day, stations: [Station], source: SnapshotEnd.Source, fetchedAt: Double,
                                     ageSeconds: Double = 0, id: String? = nil, into out: inout JSONWriter,
                                     flushEvery: Int = 1 << 20, flush: ((inout JSONWriter) -> Void)? = nil) {
        let snapshot = id ?? snapshotID(day: day, stations: stations)
        let opening = StationMessage.opening(day: day, snapshot: snapshot)
        stations.withUnsafeBufferPointer { all in
            for seq in all.indices {
                StationMessage.write(all[seq], seq: seq, opening: opening, to: &out)
                if let flush, out.bytes.count >= flushEvery { flush(&out) }
            }
        }
        SnapshotEnd(day: day, snapshot: snapshot, count: stations.count, source: source,
                    fetchedAt: fetchedAt, ageSeconds: ageSeconds).write(to: &out)
    }
}
