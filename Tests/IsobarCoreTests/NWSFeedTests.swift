import Foundation
import Testing
@testable import IsobarCore

/// National Weather Service observations (Fixtures/feeds/nws.json, GeoJSON Features as
/// api.weather.gov answers `/stations/{id}/observations/latest`): units read per value and
/// converted exactly, timestamps with offsets, null values unknown, a collection's older
/// observations of a station rejected as duplicates. Figures computed independently (Python).
@Suite struct NWSFeedTests {
    @Test func featuresMapEveryValueInItsOwnUnit() throws {
        let (parsed, format) = try FeedFormat.auto.parse(TestSupport.fixture("feeds/nws.json"), day: .today)
        #expect(format == .nws)
        #expect(parsed.errors.isEmpty && parsed.warnings.isEmpty)
        let lines = parsed.stations.enumerated().map { seq, station in
            var out = JSONWriter(capacity: 1024)
            StationMessage(day: .today, snapshot: "S", seq: seq, station: station).write(to: &out)
            return String(decoding: out.bytes.dropLast(), as: UTF8.self)
        }
        #expect(lines == [
            // 33.336 km/h = 20.71403 mph, 50.004 km/h = 31.071045 mph, 101610 Pa = 1016.1 hPa (sea level first), 16090 m = 9.997862 mi.
            #"{"type":"station","day":"today","snapshot":"S","seq":0,"id":"KSFO","name":"San Francisco, San Francisco International Airport","latitude":37.61961,"longitude":-122.36558,"temperature":51.98,"windSpeed":20.71403,"windDirection":280,"precipitation":null,"humidity":68.88,"pressure":1016.1,"dewPoint":42.08,"visibility":9.997862,"windGust":31.071045,"summary":"Mostly Cloudy","observedAt":1795679760}"#,
            // Null direction (variable), wind chill -6.5 °C = 20.3 °F as feels-like; 00:53-07:00 = 07:53Z.
            #"{"type":"station","day":"today","snapshot":"S","seq":1,"id":"KDEN","name":"Denver International Airport","latitude":39.84657,"longitude":-104.65622,"temperature":24.98,"windSpeed":3.452338,"windDirection":null,"precipitation":null,"feelsLike":20.3,"humidity":84.68,"pressure":1030.2,"dewPoint":21.02,"visibility":2.497912,"summary":"Light Snow and Mist","observedAt":1795679580}"#,
            // The older "unit:" prefix, m/s; no sea-level pressure: the station pressure.
            #"{"type":"station","day":"today","snapshot":"S","seq":2,"id":"KHAF","name":"Half Moon Bay Airport","latitude":37.51344,"longitude":-122.50111,"temperature":50,"windSpeed":0,"windDirection":0,"precipitation":null,"humidity":93.5,"pressure":1025.4,"dewPoint":48.2,"visibility":1.752267,"summary":"Mist","observedAt":1795679700}"#,
        ])
    }

    @Test func aCollectionKeepsTheNewestAndBadFeaturesAreRejectedAlone() throws {
        func feature(_ id: String, _ extra: String, stamp: String = "2026-11-26T07:50:00+00:00") -> String {
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-100,40]},"properties":{"stationId":"\#(id)","timestamp":"\#(stamp)"\#(extra)}}"#
        }
        let collection = #"{"type":"FeatureCollection","features":["# + [
            feature("KAAA", #","temperature":{"unitCode":"wmoUnit:degF","value":50}"#),
            feature("KAAA", #","temperature":{"unitCode":"wmoUnit:degF","value":49}"#),
            feature("KBBB", #","temperature":{"unitCode":"wmoUnit:K","value":280}"#),
            feature("", ""),
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-100]},"properties":{"stationId":"KCCC"}}"#,
            feature("KDDD", "", stamp: "yesterday"),
        ].joined(separator: ",") + "]}"
        let parsed = try NWSFeed.parse(Array(collection.utf8))
        #expect(parsed.stations.map(\.id) == ["KAAA"] && parsed.stations.first?.temperature == 50)
        #expect(parsed.errors.map(\.message) == [
            #"record 1 rejected: duplicate station id "KAAA"; kept the first"#,
            #"record 2 rejected: temperature.unitCode "wmoUnit:K" is not a unit it can take"#,
            "record 3 rejected: no station id (properties.stationId or properties.station)",
            "record 4 rejected: geometry.coordinates must hold two numbers [longitude, latitude]",
            #"record 5 rejected: properties.timestamp "yesterday" is not an ISO 8601 time"#,
        ])
        #expect(NWSFeed.timestamp("2026-11-26T02:53:00-05:00") == 1_795_679_580)
        #expect(NWSFeed.timestamp("2026-11-26T13:23:00+05:30") == 1_795_679_580)
        #expect(throws: MessageError("feed body is not \(NWSFeed.expected): no element has its shape; keeping the previous snapshot")) {
            try NWSFeed.parse(Array(#"[{"icaoId":"KSFO"}]"#.utf8))
        }
    }
}
