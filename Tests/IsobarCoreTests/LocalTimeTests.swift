import Foundation
import Testing
@testable import IsobarCore

/// Issue 28 item 7: every time a client sees also comes on the station's own clock, with its IANA
/// zone (the feed's, else the nearest gazetteer place's), and forecast days as local dates named in
/// the client's locale. Issue 29 item 2: every value beside its text as `key`, number and unit.
@Suite struct LocalTimeTests {
    /// The zones of the conformance gazetteer (Seoul, New York, Košice, ... and bad rows).
    static func gazetteer() throws -> ZoneIndex {
        let bytes = try Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("conformance/places/gazetteer.txt"))
        return try bytes.withUnsafeBytes { try ZoneIndex(dump: $0, file: "gazetteer.txt") }
    }

    @Test func zonesGiveExactLocalTimesAcrossDaylightSaving() throws {
        let seoul = try #require(LocalZone(identifier: "Asia/Seoul"))
        #expect(seoul.iso(1_795_417_200) == "2026-11-23T16:00:00+09:00")
        let newYork = try #require(LocalZone(identifier: "America/New_York"))
        // 2026-03-08 02:00 EST springs to 03:00 EDT; 2026-11-01 02:00 EDT falls back to 01:00 EST.
        #expect(newYork.iso(1_772_953_199) == "2026-03-08T01:59:59-05:00")
        #expect(newYork.iso(1_772_953_200) == "2026-03-08T03:00:00-04:00")
        #expect(newYork.iso(1_793_512_799) == "2026-11-01T01:59:59-04:00")
        #expect(newYork.iso(1_793_512_800) == "2026-11-01T01:00:00-05:00")
        let india = try #require(LocalZone(offsetSeconds: 19_800))
        #expect(india.name == "UTC+05:30" && india.iso(1_795_417_200) == "2026-11-23T12:30:00+05:30")
        #expect(LocalZone(offsetSeconds: -12_600)?.name == "UTC-03:30")
        #expect(LocalZone(offsetSeconds: 0)?.name == "UTC" && LocalZone(offsetSeconds: 64_801) == nil)
        #expect(LocalZone(identifier: "Mars/Olympus_Mons") == nil && LocalZone(identifier: "../etc/passwd") == nil)
        #expect(LocalZone.utc.iso(-1) == "1969-12-31T23:59:59+00:00")
        #expect(CivilTime(wallSeconds: -1).weekday == 2 && CivilTime(wallSeconds: 0).weekday == 3)  // Wednesday, Thursday
        #expect(LocalZone.utc.iso(.nan) == nil && LocalZone.utc.iso(2e12) == nil)
    }

    @Test func aStationTakesTheFeedsZoneElseItsOffsetElseTheNearestPlaces() throws {
        let zones = try Self.gazetteer()
        #expect(zones.count == 25)  // the 26 rows with a zone, less the bad row's
        let engine = FormatEngine(zones: zones)
        let seoul = Coordinate(latitude: 37.5665, longitude: 126.978)
        func station(_ details: StationDetails?) -> Station {
            Station(id: "S", name: "", coordinate: seoul, temperature: nil, windSpeed: nil, windDirection: nil, precipitation: nil,
                    details: details)
        }
        #expect(engine.zone(of: station(StationDetails(timeZone: "Europe/Bratislava", utcOffset: 3600))).name == "Europe/Bratislava")
        #expect(engine.zone(of: station(StationDetails(utcOffset: 32_400))).name == "UTC+09:00")
        #expect(engine.zone(of: station(StationDetails(timeZone: "Mars/Base"))).name == "Asia/Seoul")
        #expect(engine.zone(of: station(nil)).name == "Asia/Seoul")
        #expect(engine.zone(of: Station(id: "NY", name: "", coordinate: Coordinate(latitude: 40.7, longitude: -74), temperature: nil,
                                        windSpeed: nil, windDirection: nil, precipitation: nil)).name == "America/New_York")
        #expect(FormatEngine().zone(of: station(nil)).name == "UTC")
    }

    /// A report of a station at Seoul whose feed names no zone: sunrise and the forecast on Seoul's
    /// clock, days as Korean dates named in Slovak.
    @Test func aReportWithoutAFeedZoneShowsTheNearestPlacesClockInSlovak() throws {
        let engine = FormatEngine(zones: try Self.gazetteer())
        let line = #"{"type":"particulars","client":"ji","day":"today","locale":"sk","units":"metric","snapshot":"today-1","source":"feed","fetchedAt":1795422600,"ageSeconds":0,"station":{"id":"SEL","name":"Seoul","latitude":37.5665,"longitude":126.978,"temperature":41,"windSpeed":0.2,"windDirection":null,"precipitation":null,"precipType":"snow","sunrise":1795381200,"daily":[{"time":1795359600,"temperatureLow":28.4,"temperatureHigh":44.6,"precipitation":30,"precipType":"snow"}]}}"#
        var out = JSONWriter()
        Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, into: &out) }
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"type":"report","client":"ji","id":"SEL","day":"today","units":"metric","windUnit":"kmh","locale":"sk","title":"Seoul","subtitle":"SEL · Dnes","coordinate":{"latitude":37.5665,"longitude":126.978},"details":[{"label":"Teplota","value":"5,0 °C","key":"temperature","number":5,"unit":"°C"},{"label":"Vietor","value":"bezvetrie","key":"windSpeed","number":0.321869,"unit":"km/h","calm":true},{"label":"Východ slnka","value":"21:00 UTC","key":"sunrise","time":1795381200,"zone":"Asia/Seoul","local":"2026-11-23T06:00:00+09:00"},{"label":"Súradnice","value":"37,5665° s. š., 126,9780° v. d.","key":"coordinates","latitude":37.5665,"longitude":126.978}],"zone":"Asia/Seoul","hourly":[],"daily":[{"time":1795359600,"label":"2026-11-22 15:00 UTC","zone":"Asia/Seoul","local":"2026-11-23T00:00:00+09:00","date":"2026-11-23","weekday":"pondelok","details":[{"label":"Minimum","value":"-2,0 °C","key":"temperatureLow","number":-2,"unit":"°C"},{"label":"Maximum","value":"7,0 °C","key":"temperatureHigh","number":7,"unit":"°C"},{"label":"Pravdepodobnosť zrážok","value":"30 %","key":"precipitation","number":30,"unit":"%","precipType":"snow"}]}],"snapshot":"today-1","source":"feed","fetchedAt":1795422600,"ageSeconds":0}"# + "\n")
    }
}
