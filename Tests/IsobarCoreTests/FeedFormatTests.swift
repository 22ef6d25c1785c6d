import Foundation
import Testing
@testable import IsobarCore

/// The OpenWeather, Dark Sky and AirVisual parsers on the fixtures of Fixtures/feeds (written from
/// each API's documented shapes): exact station lines, every field converted, and whole bodies of
/// the wrong format refused with one error naming the format expected.
@Suite struct FeedFormatTests {
    /// Station lines (snapshot "S") of every station the fixture gives for `day`.
    static func lines(_ file: String, _ format: FeedFormat, _ day: Day = .today,
                      units: OpenWeatherFeed.Units = .standard) throws -> (text: String, format: FeedFormat, parsed: ParsedFeed) {
        let (parsed, chosen) = try format.parse(TestSupport.fixture("feeds/" + file), day: day,
                                                options: FeedFormat.Options(openWeatherUnits: units))
        var out = JSONWriter(capacity: 1 << 16)
        for (seq, station) in parsed.stations.enumerated() { StationMessage(day: day, snapshot: "S", seq: seq, station: station).write(to: &out) }
        return (String(decoding: out.bytes, as: UTF8.self), chosen, parsed)
    }

    static func expected(_ name: String) throws -> String {
        String(decoding: try TestSupport.fixture("feeds/expected/" + name), as: UTF8.self)
    }

    @Test func openWeatherGroupInKelvinAndMetresPerSecond() throws {
        let (text, _, parsed) = try Self.lines("openweather-group.json", .openweather)
        #expect(parsed.errors.isEmpty && parsed.warnings.isEmpty)
        #expect(text == (try Self.expected("openweather-group.today.ndjson")))
        // 280.32 K = 44.906 °F, 4.1 m/s = 9.171439 mph, 10,000 m = 6.213712 mi (rounded to 6 decimals).
        #expect(text.split(separator: "\n").first == #"{"type":"station","day":"today","snapshot":"S","seq":0,"id":"2643743","name":"London","latitude":51.5085,"longitude":-0.1257,"temperature":44.906,"windSpeed":9.171439,"windDirection":80,"precipitation":null,"feelsLike":40.64,"temperatureLow":42.8,"temperatureHigh":46.4,"humidity":81,"pressure":1012,"visibility":6.213712,"windGust":16.105941,"cloudCover":90,"summary":"light intensity drizzle","icon":"rain","precipType":"rain","sunrise":1795417380,"sunset":1795448520,"observedAt":1795430400,"utcOffset":0}"#)
    }

    @Test func openWeatherSingleAnswersInImperialUnits() throws {
        let (text, chosen, _) = try Self.lines("openweather-imperial.json", .auto, units: .imperial)
        #expect(chosen == .openweather)
        #expect(text == (try Self.expected("openweather-imperial.today.ndjson")))
        #expect(text.split(separator: "\n").first == #"{"type":"station","day":"today","snapshot":"S","seq":0,"id":"4726206","name":"San Antonio","latitude":29.4241,"longitude":-98.4936,"temperature":78.8,"windSpeed":14.97,"windDirection":190,"precipitation":null,"feelsLike":80.1,"temperatureLow":76.3,"temperatureHigh":81.2,"humidity":74,"pressure":1006,"visibility":3.999766,"windGust":28.86,"cloudCover":75,"summary":"thunderstorm","icon":"thunderstorm","precipType":"rain","sunrise":1795396080,"sunset":1795434000,"observedAt":1795430400,"utcOffset":-21600}"#)
    }

    @Test func darkSkyGivesTodayFromCurrentlyAndTomorrowFromTheSecondDay() throws {
        let today = try Self.lines("darksky.json", .darksky, .today)
        #expect(today.text == (try Self.expected("darksky.today.ndjson")))
        let tomorrow = try Self.lines("darksky.json", .auto, .tomorrow)
        #expect(tomorrow.format == .darksky)
        #expect(tomorrow.text == (try Self.expected("darksky.tomorrow.ndjson")))
        // si units: -1.7 °C = 28.94 °F, 4.2 m/s = 9.395132 mph, 3.2 km = 1.988388 mi, humidity 0.89 = 89 %.
        let kosice = try #require(today.parsed.stations.first { $0.id == "48.7164,21.2611" })
        #expect(kosice.temperature == 28.94 && kosice.windSpeed == 9.395132 && kosice.precipitation == 72)
        #expect(kosice.details?.visibility == 1.988388 && kosice.details?.humidity == 89 && kosice.details?.cloudCover == 97)
        // ca units: 17.3 km/h = 10.749722 mph.
        #expect(today.parsed.stations.first { $0.id == "45.5017,-73.5673" }?.windSpeed == 10.749722)
        // 49 hourly points in the answer, 48 kept; 8 daily. The first hour: -3.7 °C = 25.34 °F.
        let details = try #require(kosice.details)
        #expect(details.hourly.count == 48 && details.daily.count == 8)
        var out = JSONWriter(capacity: 256)
        details.hourly[0].write(to: &out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"time":1795428000,"summary":"Light Snow","icon":"snow","temperature":25.34,"precipitation":60,"windSpeed":9.395132,"windDirection":315}"#)
        // Tomorrow: the temperature is daily[1]'s high, low/high and sun times from daily[1].
        let platte = try #require(tomorrow.parsed.stations.first)
        #expect(platte.temperature == 53.2 && platte.details?.temperatureLow == 31.45 && platte.details?.sunrise == 1795503600)
    }

    @Test func airVisualNearestCity() throws {
        let (text, chosen, _) = try Self.lines("airvisual.json", .auto)
        #expect(chosen == .airvisual)
        #expect(text == #"""
        {"type":"station","day":"today","snapshot":"S","seq":0,"id":"Nigeria/Rivers/Port Harcourt","name":"Port Harcourt","latitude":4.854166,"longitude":7.048623,"temperature":80.6,"windSpeed":4.608089,"windDirection":220,"precipitation":null,"humidity":84,"pressure":1010,"icon":"rain","observedAt":1795460400}
        {"type":"station","day":"today","snapshot":"S","seq":1,"id":"Slovakia/Kosicky/Kosice","name":"Kosice","latitude":48.71395,"longitude":21.25808,"temperature":28.4,"windSpeed":8.052971,"windDirection":310,"precipitation":null,"humidity":92,"pressure":1009,"icon":"snow","observedAt":1795460400}
        {"type":"station","day":"today","snapshot":"S","seq":2,"id":"USA/California/Los Angeles","name":"Los Angeles","latitude":34.0669,"longitude":-118.2417,"temperature":66.2,"windSpeed":3.444882,"windDirection":250,"precipitation":null,"humidity":41,"pressure":1016,"icon":"partly-cloudy-day","observedAt":1795456800}

        """#)
        #expect(text == (try Self.expected("airvisual.today.ndjson")))
    }

    @Test func autoRecognisesOnX() throws {
        #expect(try FeedFormat.recognise(TestSupport.fixture("today.json")) == .onx)
        #expect(try FeedFormat.auto.parse(TestSupport.fixture("today.json"), day: .today).feed.stations.count == 181)
    }

    @Test func stationLinesWithDetailsReadBackToTheSameBytes() throws {
        for file in ["darksky.today.ndjson", "openweather-group.today.ndjson", "airvisual.today.ndjson"] {
            let text = try Self.expected(file)
            for line in text.split(separator: "\n") {
                let message = try StationMessage(from: JSONObject(parsing: String(line)))
                var out = JSONWriter(capacity: 4096)
                message.write(to: &out)
                #expect(String(decoding: out.bytes, as: UTF8.self) == line + "\n")
            }
        }
    }

    @Test func onXStationsKeepTheirSnapshotIDsAndDetailsChangeThem() throws {
        // The onX fingerprint is what it was before details existed: stored snapshot ids stay valid.
        #expect(OnXFeed.snapshotID(day: .today, stations: try TestSupport.onx(.today)) == "today-c92f6458fd25e70f")
        var stations = try Self.lines("airvisual.json", .airvisual).parsed.stations
        let before = OnXFeed.snapshotID(day: .today, stations: stations)
        stations[0].details = StationDetails(humidity: 85, pressure: 1010, icon: .rain, observedAt: 1795460400)
        #expect(OnXFeed.snapshotID(day: .today, stations: stations) != before)
    }

    @Test func aStationWithDetailsIsOneReferenceLarger() {
        // Two strings (32), a coordinate (16), four NaN-packed values (32), the details reference (8).
        #expect(MemoryLayout<Station>.stride == 88)
    }

    static let wrongFormat: [(FeedFormat, String, String)] = [
        (.openweather, "today.json", "feed body is not an OpenWeather current-weather response (an object with \"list\" or \"coord\", or an array of them): no element has its shape; keeping the previous snapshot"),
        (.darksky, "feeds/airvisual.json", "feed body is not a Dark Sky forecast response (an object with \"latitude\", \"longitude\" and \"currently\" or \"daily\", or an array of them): no element has its shape; keeping the previous snapshot"),
        (.airvisual, "feeds/openweather-group.json", "feed body is not an AirVisual nearest_city response (an object with \"status\" and \"data\", or an array of them): the object does not have its shape; keeping the previous snapshot"),
        (.onx, "feeds/darksky.json", "feed has no valid station record (3 rejected); keeping the previous snapshot"),
        (.onx, "feeds/openweather-group.json", "feed body is not a JSON array of station records: expected a JSON array, found an object at byte 0"),
    ]

    @Test(arguments: 0..<5)
    func aBodyOfTheWrongFormatIsRefusedWhole(_ index: Int) throws {
        let (format, file, message) = Self.wrongFormat[index]
        #expect(throws: MessageError(message)) { try format.parse(TestSupport.fixture(file), day: .today) }
    }

    @Test func autoRefusesWhatNoFormatRecognises() {
        #expect(throws: MessageError(#"feed body matches none of the formats onx, openweather, darksky, airvisual, metar, openmeteo, nws (its first object has "a", "b"); give --format"#)) {
            try FeedFormat.recognise(Array(#"[{"a":1,"b":2}]"#.utf8))
        }
        #expect(throws: MessageError("feed body is neither a JSON object nor an array of objects, so no format (onx, openweather, darksky, airvisual, metar, openmeteo, nws) recognises it")) {
            try FeedFormat.recognise(Array("[1,2]".utf8))
        }
    }
}
