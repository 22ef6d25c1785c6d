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

    /// A report line as `label: value`.
    static func text(_ line: [String: Any]) -> String {
        "\(line["label"] ?? ""): \(line["value"] ?? "")"
    }

    /// A report line's data: `key number unit`, `key zone local` for a time, `key` alone otherwise.
    static func data(_ line: [String: Any]) -> String {
        let key = line["key"] as? String ?? "?"
        if let number = line["number"] as? Double { return "\(key) \(LineData.r6(number).formatted) \(line["unit"] as? String ?? "?")" }
        if let zone = line["zone"] as? String { return "\(key) \(zone) \(line["local"] as? String ?? "?")" }
        return key
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aDarkSkyReportListsHourlyAndDailyForecastsInEnglish() throws {
        let out = try Self.pipeline("darksky.json", .darksky, [#"{"type":"detail","client":"alice","id":"43.4033,-98.8295"}"#])
        try #require(out.count == 1)
        #expect(out[0].hasPrefix(#"{"type":"report","client":"alice","id":"43.4033,-98.8295","day":"today","units":"imperial","windUnit":"mph","locale":"en","title":"43.4033,-98.8295","subtitle":"43.4033,-98.8295 · Today","coordinate":{"latitude":43.40332,"longitude":-98.82952},"details":[{"label":"Temperature","value":"46.4 °F","key":"temperature","number":46.4,"unit":"°F"},{"label":"Wind","value":"6.9 mph from W (270°) →","key":"windSpeed","number":6.9,"unit":"mph","calm":false,"direction":270},{"label":"Chance of precipitation","value":"5 %","key":"precipitation","number":5,"unit":"%"},{"label":"Feels like","value":"42.8 °F","key":"feelsLike","number":42.78,"unit":"°F"},{"label":"Low","value":"31.2 °F","key":"temperatureLow","number":31.2,"unit":"°F"},{"label":"High","value":"52.7 °F","key":"temperatureHigh","number":52.7,"unit":"°F"},{"label":"Humidity","value":"53 %","key":"humidity","number":53,"unit":"%"},{"label":"Pressure","value":"30.16 inHg","key":"pressure","number":30.158972,"unit":"inHg"},{"label":"Dew point","value":"30.1 °F","key":"dewPoint","number":30.1,"unit":"°F"},{"label":"Visibility","value":"10.0 mi","key":"visibility","number":10,"unit":"mi"},{"label":"UV index","value":"2","key":"uvIndex","number":2,"unit":""},{"label":"Wind gusts","value":"13.4 mph","key":"windGust","number":13.4,"unit":"mph"},{"label":"Cloud cover","value":"41 %","key":"cloudCover","number":41,"unit":"%"},{"label":"Conditions","value":"Partly Cloudy","key":"summary"},{"label":"Sunrise","value":"07:00 UTC","key":"sunrise","time":1795417200,"zone":"America/Chicago","local":"2026-11-23T01:00:00-06:00"},{"label":"Sunset","value":"17:00 UTC","key":"sunset","time":1795453200,"zone":"America/Chicago","local":"2026-11-23T11:00:00-06:00"},{"label":"Observed","value":"2026-11-23 10:00 UTC","key":"observedAt","time":1795428000,"zone":"America/Chicago","local":"2026-11-23T04:00:00-06:00"},{"label":"Coordinates","value":"43.4033° N, 98.8295° W","key":"coordinates","latitude":43.40332,"longitude":-98.82952}],"zone":"America/Chicago","icon":"partly-cloudy-day","hourly":[{"time":1795428000,"label":"2026-11-23 10:00 UTC","zone":"America/Chicago","local":"2026-11-23T04:00:00-06:00","date":"2026-11-23","weekday":"Monday","summary":"Partly Cloudy","icon":"partly-cloudy-day","details":[{"label":"Temperature","value":"40.4 °F","key":"temperature","number":40.4,"unit":"°F"},{"label":"Chance of precipitation","value":"5 %","key":"precipitation","number":5,"unit":"%"},{"label":"Wind","value":"6.9 mph from W (270°) →","key":"windSpeed","number":6.9,"unit":"mph","calm":false,"direction":270}]},"#))
        #expect(out[0].hasSuffix(#""snapshot":"today-86e5c1a78051ac76","source":"feed","fetchedAt":1795428100,"ageSeconds":0}"#))
        let report = try Self.object(out[0])
        #expect((report["hourly"] as? [Any])?.count == 48 && (report["daily"] as? [Any])?.count == 8)
        #expect(report["stale"] == nil)  // no --stale-after: never marked
    }

    @Test func aDarkSkyReportInSlovakAndMetric() throws {
        let out = try Self.pipeline("darksky.json", .darksky, day: .tomorrow,
                                    [#"{"type":"detail","client":"zuzana","id":"48.7164,21.2611","day":"tomorrow","units":"metric","locale":"sk"}"#])
        try #require(out.count == 1)
        let report = try Self.object(out[0])
        let details = try #require(report["details"] as? [[String: Any]])
        #expect(details.map(Self.text) == [
            "Teplota: 1,3 °C", "Vietor: 17,6 km/h od SZ (310°) ↘", "Pravdepodobnosť zrážok: 75 %", "Pocitová teplota: 0,3 °C",
            "Minimum: -4,2 °C", "Maximum: 1,3 °C", "Vlhkosť: 58 %", "Tlak: 1016 hPa", "Rosný bod: -7,5 °C", "Viditeľnosť: 10,0 km",
            "UV index: 3", "Nárazy vetra: 33,1 km/h", "Oblačnosť: 44 %", "Počasie: Snow throughout the day.", "Východ slnka: 07:00 UTC",
            "Západ slnka: 17:00 UTC", "Pozorované: 2026-11-23 10:00 UTC", "Súradnice: 48,7164° s. š., 21,2611° v. d.",
        ])
        // Every value as data too: its key, the number in the client's unit (°C, km/h, hPa, km) and the unit.
        #expect(details.map(Self.data) == [
            "temperature 1.3 °C", "windSpeed 17.64 km/h", "precipitation 75 %", "feelsLike 0.3 °C", "temperatureLow -4.25 °C",
            "temperatureHigh 1.3 °C", "humidity 58 %", "pressure 1016.4 hPa", "dewPoint -7.5 °C", "visibility 10 km", "uvIndex 3 ",
            "windGust 33.12 km/h", "cloudCover 44 %", "summary", "sunrise Europe/Bratislava 2026-11-24T08:00:00+01:00",
            "sunset Europe/Bratislava 2026-11-24T18:00:00+01:00", "observedAt Europe/Bratislava 2026-11-23T11:00:00+01:00", "coordinates",
        ])
        let daily = try #require(report["daily"] as? [[String: Any]])
        #expect(daily.count == 8)
        #expect(daily.prefix(3).map { "\($0["date"] ?? "") \($0["weekday"] ?? "") \($0["local"] ?? "")" } == [
            "2026-11-23 pondelok 2026-11-23T01:00:00+01:00", "2026-11-24 utorok 2026-11-24T01:00:00+01:00",
            "2026-11-25 streda 2026-11-25T01:00:00+01:00",
        ])
        let first = try #require(daily.first)
        #expect(first["label"] as? String == "2026-11-23 00:00 UTC")
        #expect((first["details"] as? [[String: Any]])?.map(Self.text) == [
            "Minimum: -4,5 °C", "Maximum: 0,8 °C", "Pravdepodobnosť zrážok: 70 %", "Vietor: 16,6 km/h od ZSZ (300°) ↘",
        ])
        #expect((report["hourly"] as? [Any])?.count == 48)
    }

    @Test func anUnknownStationIsAnErrorForThatClient() throws {
        let out = try Self.pipeline("airvisual.json", .airvisual, [#"{"type":"detail","client":"alice","id":"NOPE"}"#])
        #expect(out == [#"{"type":"error","stage":"filter","message":"unknown station \"NOPE\" in the today snapshot","excerpt":"{\"type\":\"detail\",\"client\":\"alice\",\"id\":\"NOPE\"}","client":"alice","code":"invalid"}"#])
    }

    @Test func theCalloutShowsTheRicherFields() throws {
        let out = try Self.pipeline("openweather-group.json", .openweather, [
            #"{"type":"viewport","client":"alice","center":{"latitude":51.5,"longitude":0},"span":{"latitudeDelta":2,"longitudeDelta":2},"units":"metric"}"#,
            #"{"type":"select","client":"alice","id":"2643743"}"#,
        ])
        try #require(out.count == 2)
        #expect(out[1] == #"{"type":"callout","client":"alice","id":"2643743","day":"today","reason":"selected","clear":false,"title":"London","subtitle":"2643743 · Today","coordinate":{"latitude":51.5085,"longitude":-0.1257},"details":[{"label":"Temperature","value":"7.2 °C","key":"temperature","number":7.17,"unit":"°C"},{"label":"Wind","value":"14.8 km/h from E (80°) ←","key":"windSpeed","number":14.76,"unit":"km/h","calm":false,"direction":80},{"label":"Feels like","value":"4.8 °C","key":"feelsLike","number":4.8,"unit":"°C"},{"label":"Low","value":"6.0 °C","key":"temperatureLow","number":6,"unit":"°C"},{"label":"High","value":"8.0 °C","key":"temperatureHigh","number":8,"unit":"°C"},{"label":"Humidity","value":"81 %","key":"humidity","number":81,"unit":"%"},{"label":"Pressure","value":"1012 hPa","key":"pressure","number":1012,"unit":"hPa"},{"label":"Visibility","value":"10.0 km","key":"visibility","number":10,"unit":"km"},{"label":"Wind gusts","value":"25.9 km/h","key":"windGust","number":25.92,"unit":"km/h"},{"label":"Cloud cover","value":"90 %","key":"cloudCover","number":90,"unit":"%"},{"label":"Conditions","value":"light intensity drizzle","key":"summary"},{"label":"Sunrise","value":"07:03 UTC","key":"sunrise","time":1795417380,"zone":"UTC","local":"2026-11-23T07:03:00+00:00"},{"label":"Sunset","value":"15:42 UTC","key":"sunset","time":1795448520,"zone":"UTC","local":"2026-11-23T15:42:00+00:00"},{"label":"Observed","value":"2026-11-23 10:40 UTC","key":"observedAt","time":1795430400,"zone":"UTC","local":"2026-11-23T10:40:00+00:00"},{"label":"Coordinates","value":"51.5085° N, 0.1257° W","key":"coordinates","latitude":51.5085,"longitude":-0.1257}],"icon":"rain","snapshot":"today-3d98c1ce158951d2","source":"feed","fetchedAt":1795428100,"ageSeconds":0}"#)
    }
}

private extension Double {
    /// `46`, `-4.2`: as JSON writes it (integral without a fraction).
    var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
