import Foundation
import Testing
@testable import IsobarCore

/// `detail` (issue 14): the filter answers with the station's particulars, the formatter writes the
/// `report` (every value with its label and unit in the client's locale, and the forecast), and the
/// callout shows the richer fields too.
@Suite struct DetailMessageTests {
    /// Filter and formatter fed a feed's stations for `day`, then `lines`; the formatter's output.
    static func pipeline(_ file: String, _ format: FeedFormat, day: Day = .today, _ lines: [String]) throws -> [String] {
        let parsed = try format.parse(TestSupport.fixture("feeds/" + file), day: day).feed
        var input = JSONWriter()
        OnXFeed.writeSnapshot(day: day, stations: parsed.stations, source: .feed, fetchedAt: 1_795_428_100, into: &input)
        for line in lines { input.raw(Array(line.utf8)); input.newline() }
        let filter = FilterEngine(wallClock: { 1_795_430_000 })
        var visible = JSONWriter()
        for line in String(decoding: input.bytes, as: UTF8.self).split(separator: "\n") {
            Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &visible) }
        }
        let formatter = FormatEngine()
        var out = JSONWriter()
        for line in String(decoding: visible.bytes, as: UTF8.self).split(separator: "\n") {
            Array(line.utf8).withUnsafeBytes { formatter.handle(line: $0, into: &out) }
        }
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aDarkSkyReportListsHourlyAndDailyForecastsInEnglish() throws {
        let out = try Self.pipeline("darksky.json", .darksky, [#"{"type":"detail","client":"alice","id":"43.4033,-98.8295"}"#])
        try #require(out.count == 1)
        #expect(out[0].hasPrefix(#"{"type":"report","client":"alice","id":"43.4033,-98.8295","day":"today","units":"imperial","windUnit":"mph","locale":"en","title":"43.4033,-98.8295","subtitle":"43.4033,-98.8295 · Today","coordinate":{"latitude":43.40332,"longitude":-98.82952},"details":[{"label":"Temperature","value":"46.4 °F"},{"label":"Wind","value":"6.9 mph from W (270°) →"},{"label":"Chance of precipitation","value":"5 %"},{"label":"Feels like","value":"42.8 °F"},{"label":"Low","value":"31.2 °F"},{"label":"High","value":"52.7 °F"},{"label":"Humidity","value":"53 %"},{"label":"Pressure","value":"30.16 inHg"},{"label":"Dew point","value":"30.1 °F"},{"label":"Visibility","value":"10.0 mi"},{"label":"UV index","value":"2"},{"label":"Wind gusts","value":"13.4 mph"},{"label":"Cloud cover","value":"41 %"},{"label":"Conditions","value":"Partly Cloudy"},{"label":"Sunrise","value":"07:00 UTC"},{"label":"Sunset","value":"17:00 UTC"},{"label":"Observed","value":"2026-11-23 10:00 UTC"},{"label":"Coordinates","value":"43.4033° N, 98.8295° W"}],"icon":"partly-cloudy-day","hourly":[{"time":1795428000,"label":"2026-11-23 10:00 UTC","summary":"Partly Cloudy","icon":"partly-cloudy-day","details":[{"label":"Temperature","value":"40.4 °F"},{"label":"Chance of precipitation","value":"5 %"},{"label":"Wind","value":"6.9 mph from W (270°) →"}]},"#))
        #expect(out[0].hasSuffix(#""snapshot":"today-b7265eb03f293f36","source":"feed","fetchedAt":1795428100,"ageSeconds":0}"#))
        let report = try Self.object(out[0])
        #expect((report["hourly"] as? [Any])?.count == 48 && (report["daily"] as? [Any])?.count == 8)
        #expect(report["stale"] == nil)  // no --stale-after: never marked
    }

    @Test func aDarkSkyReportInSlovakAndMetric() throws {
        let out = try Self.pipeline("darksky.json", .darksky, day: .tomorrow,
                                    [#"{"type":"detail","client":"zuzana","id":"48.7164,21.2611","day":"tomorrow","units":"metric","locale":"sk"}"#])
        try #require(out.count == 1)
        let report = try Self.object(out[0])
        let details = try #require(report["details"] as? [[String: String]])
        #expect(details.map { $0["label"]! + ": " + $0["value"]! } == [
            "Teplota: 1,3 °C", "Vietor: 17,6 km/h od SZ (310°) ↘", "Pravdepodobnosť zrážok: 75 %", "Pocitová teplota: 0,3 °C",
            "Minimum: -4,2 °C", "Maximum: 1,3 °C", "Vlhkosť: 58 %", "Tlak: 1016 hPa", "Rosný bod: -7,5 °C", "Viditeľnosť: 10,0 km",
            "UV index: 3", "Nárazy vetra: 33,1 km/h", "Oblačnosť: 44 %", "Počasie: Snow throughout the day.", "Východ slnka: 07:00 UTC",
            "Západ slnka: 17:00 UTC", "Pozorované: 2026-11-23 10:00 UTC", "Súradnice: 48,7164° s. š., 21,2611° v. d.",
        ])
        let daily = try #require(report["daily"] as? [[String: Any]])
        #expect(daily.count == 8)
        let first = try #require(daily.first)
        #expect(first["label"] as? String == "2026-11-23 00:00 UTC")
        #expect((first["details"] as? [[String: String]])?.map { $0["label"]! + ": " + $0["value"]! } == [
            "Minimum: -4,5 °C", "Maximum: 0,8 °C", "Pravdepodobnosť zrážok: 70 %", "Vietor: 16,6 km/h od ZSZ (300°) ↘",
        ])
        #expect((report["hourly"] as? [Any])?.count == 48)
    }

    @Test func anUnknownStationIsAnErrorForThatClient() throws {
        let out = try Self.pipeline("airvisual.json", .airvisual, [#"{"type":"detail","client":"alice","id":"NOPE"}"#])
        #expect(out == [#"{"type":"error","stage":"filter","message":"unknown station \"NOPE\" in the today snapshot","excerpt":"{\"type\":\"detail\",\"client\":\"alice\",\"id\":\"NOPE\"}","client":"alice"}"#])
    }

    @Test func theCalloutShowsTheRicherFields() throws {
        let out = try Self.pipeline("openweather-group.json", .openweather, [
            #"{"type":"viewport","client":"alice","center":{"latitude":51.5,"longitude":0},"span":{"latitudeDelta":2,"longitudeDelta":2},"units":"metric"}"#,
            #"{"type":"select","client":"alice","id":"2643743"}"#,
        ])
        try #require(out.count == 2)
        #expect(out[1] == #"{"type":"callout","client":"alice","id":"2643743","day":"today","reason":"selected","clear":false,"title":"London","subtitle":"2643743 · Today","coordinate":{"latitude":51.5085,"longitude":-0.1257},"details":[{"label":"Temperature","value":"7.2 °C"},{"label":"Wind","value":"14.8 km/h from E (80°) ←"},{"label":"Feels like","value":"4.8 °C"},{"label":"Low","value":"6.0 °C"},{"label":"High","value":"8.0 °C"},{"label":"Humidity","value":"81 %"},{"label":"Pressure","value":"1012 hPa"},{"label":"Visibility","value":"10.0 km"},{"label":"Wind gusts","value":"25.9 km/h"},{"label":"Cloud cover","value":"90 %"},{"label":"Conditions","value":"light intensity drizzle"},{"label":"Sunrise","value":"07:03 UTC"},{"label":"Sunset","value":"15:42 UTC"},{"label":"Observed","value":"2026-11-23 10:40 UTC"},{"label":"Coordinates","value":"51.5085° N, 0.1257° W"}],"snapshot":"today-89c77868914ea498","source":"feed","fetchedAt":1795428100,"ageSeconds":0}"#)
    }
}
