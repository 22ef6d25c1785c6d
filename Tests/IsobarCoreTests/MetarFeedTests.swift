import Foundation
import Testing
@testable import IsobarCore

/// METAR from the Aviation Weather Center, in its two forms (Fixtures/feeds/metar.json, the data
/// API's JSON; Fixtures/feeds/metars.cache.csv, the cache file's table): exact station lines, the
/// awkward groups (VRB, calm, gusts, missing temperature or wind, `10+`/`6+` visibility), humidity
/// by Magnus, bad records rejected alone, a body of another shape refused whole. The expected
/// figures in the comments were computed independently (Python, same formulas).
@Suite struct MetarFeedTests {
    static func lines(_ file: String, _ format: FeedFormat = .metar) throws -> (lines: [String], parsed: ParsedFeed, format: FeedFormat) {
        let (parsed, chosen) = try format.parse(TestSupport.fixture("feeds/" + file), day: .today)
        return (parsed.stations.enumerated().map { seq, station in
            var out = JSONWriter(capacity: 1024)
            StationMessage(day: .today, snapshot: "S", seq: seq, station: station).write(to: &out)
            return String(decoding: out.bytes.dropLast(), as: UTF8.self)
        }, parsed, chosen)
    }

    @Test func theDataAPIsJSONMapsEveryFieldExactly() throws {
        let (lines, parsed, format) = try Self.lines("metar.json", .auto)
        #expect(format == .metar)
        #expect(parsed.errors.isEmpty && parsed.warnings.isEmpty)
        #expect(lines == [
            // 11.1 °C = 51.98 °F, 18 kt = 20.71403 mph, gust 27 kt = 31.071045 mph, RH(11.1, 5.6) = 68.877362 %,
            // "10+" = 10 mi, slp before altim, BKN = 87.5 %.
            #"{"type":"station","day":"today","snapshot":"S","seq":0,"id":"KSFO","name":"San Francisco Intl, CA, US","latitude":37.6197,"longitude":-122.3647,"temperature":51.98,"windSpeed":20.71403,"windDirection":280,"precipitation":null,"humidity":68.877362,"pressure":1016.1,"dewPoint":42.08,"visibility":10,"windGust":31.071045,"cloudCover":87.5,"summary":"KSFO 260756Z 28018G27KT 10SM FEW012 BKN180 11/06 A3001 RMK AO2 SLP161 T01110056","observedAt":1795679760}"#,
            // "6+" (9999 m) = 6 mi; no slp: the altimeter setting.
            #"{"type":"station","day":"today","snapshot":"S","seq":1,"id":"LEJR","name":"Jerez Arpt, AN, ES","latitude":36.751,"longitude":-6.056,"temperature":71.6,"windSpeed":12.658574,"windDirection":240,"precipitation":null,"humidity":56.659699,"pressure":1015,"dewPoint":55.4,"visibility":6,"cloudCover":25,"summary":"LEJR 260730Z 24011KT 220V280 9999 FEW050 22/13 Q1015","observedAt":1795678200}"#,
            // VRB: the speed, no direction; -SN: snow.
            #"{"type":"station","day":"today","snapshot":"S","seq":2,"id":"KDEN","name":"Denver Intl, CO, US","latitude":39.8466,"longitude":-104.6562,"temperature":24.98,"windSpeed":3.452338,"windDirection":null,"precipitation":null,"humidity":84.677701,"pressure":1030.2,"dewPoint":21.02,"visibility":2.5,"cloudCover":100,"summary":"KDEN 260753Z VRB03KT 2 1/2SM -SN BR OVC008 M04/M06 A3017 RMK AO2 SLP302 P0000 T10391061","precipType":"snow","observedAt":1795679580}"#,
            // Calm (00000KT): speed 0, no direction.
            #"{"type":"station","day":"today","snapshot":"S","seq":3,"id":"KHAF","name":"Half Moon Bay Arpt, CA, US","latitude":37.5135,"longitude":-122.5012,"temperature":50,"windSpeed":0,"windDirection":null,"precipitation":null,"humidity":93.504015,"pressure":1025.4,"dewPoint":48.2,"visibility":1.75,"cloudCover":100,"summary":"KHAF 260755Z AUTO 00000KT 1 3/4SM BR OVC003 10/09 A3028 RMK AO2","observedAt":1795679700}"#,
            // Missing temperature group (/////): no temperature, dew point or humidity.
            #"{"type":"station","day":"today","snapshot":"S","seq":4,"id":"EGLL","name":"London/Heathrow Intl, EN, GB","latitude":51.4775,"longitude":-0.4614,"temperature":null,"windSpeed":10.357015,"windDirection":230,"precipitation":null,"pressure":1009,"visibility":6,"cloudCover":0,"summary":"EGLL 260750Z AUTO 23009KT 9999 NCD ///// Q1009","observedAt":1795679400}"#,
            // Missing wind group (/////KT): no speed, no direction; T = Td: 100 %; FZFG is no precipitation.
            #"{"type":"station","day":"today","snapshot":"S","seq":5,"id":"PAJN","name":"Juneau Intl, AK, US","latitude":58.3547,"longitude":-134.5763,"temperature":33.98,"windSpeed":null,"windDirection":null,"precipitation":null,"humidity":100,"pressure":1003.4,"dewPoint":33.98,"visibility":0.25,"summary":"PAJN 260753Z /////KT 1/4SM FZFG VV002 01/01 A2963 RMK AO2 T00110011","observedAt":1795679580}"#,
        ])
    }

    @Test func theCacheTableMapsLikeTheJSON() throws {
        let (lines, parsed, format) = try Self.lines("metars.cache.csv", .auto)
        #expect(format == .metar)
        #expect(parsed.errors.isEmpty && parsed.warnings.isEmpty)
        #expect(lines == [
            // 30.01 inHg = 1016.255231 hPa, but the sea-level pressure (1016.1) comes first; the table has no name: the id.
            #"{"type":"station","day":"today","snapshot":"S","seq":0,"id":"KSFO","name":"KSFO","latitude":37.6197,"longitude":-122.3647,"temperature":51.98,"windSpeed":20.71403,"windDirection":280,"precipitation":null,"humidity":68.877362,"pressure":1016.1,"dewPoint":42.08,"visibility":10,"windGust":31.071045,"cloudCover":87.5,"summary":"KSFO 260756Z 28018G27KT 10SM FEW012 BKN180 11/06 A3001 RMK AO2 SLP161 T01110056","observedAt":1795679760}"#,
            #"{"type":"station","day":"today","snapshot":"S","seq":1,"id":"KDEN","name":"KDEN","latitude":39.8466,"longitude":-104.6562,"temperature":24.98,"windSpeed":3.452338,"windDirection":null,"precipitation":null,"humidity":84.677701,"pressure":1030.2,"dewPoint":21.02,"visibility":2.5,"cloudCover":100,"summary":"KDEN 260753Z VRB03KT 2 1/2SM -SN BR OVC008 M04/M06 A3017 RMK AO2 SLP302 P0000 T10391061","precipType":"snow","observedAt":1795679580}"#,
            // No sea-level pressure: 30.28 inHg = 1025.398460 hPa.
            #"{"type":"station","day":"today","snapshot":"S","seq":2,"id":"KHAF","name":"KHAF","latitude":37.5135,"longitude":-122.5012,"temperature":50,"windSpeed":0,"windDirection":null,"precipitation":null,"humidity":93.504015,"pressure":1025.39848,"dewPoint":48.2,"visibility":1.75,"cloudCover":100,"summary":"KHAF 260755Z AUTO 00000KT 1 3/4SM BR OVC003 10/09 A3028 RMK AO2","observedAt":1795679700}"#,
            #"{"type":"station","day":"today","snapshot":"S","seq":3,"id":"EGLL","name":"EGLL","latitude":51.4775,"longitude":-0.4614,"temperature":null,"windSpeed":10.357015,"windDirection":230,"precipitation":null,"pressure":1008.805176,"visibility":6,"cloudCover":0,"summary":"EGLL 260750Z AUTO 23009KT 9999 NCD ///// Q1009","observedAt":1795679400}"#,
            #"{"type":"station","day":"today","snapshot":"S","seq":4,"id":"YSRI","name":"YSRI","latitude":-33.6,"longitude":150.77,"temperature":64.4,"windSpeed":4.603118,"windDirection":230,"precipitation":null,"humidity":100,"pressure":1018.964342,"dewPoint":64.4,"visibility":4.35,"cloudCover":100,"summary":"YSRI 260730Z AUTO 23004KT 7000 // OVC019 OVC027 18/18 Q1019","observedAt":1795678200}"#,
        ])
    }

    /// The legacy preamble (five status lines before the header), quoted fields and CRLF line ends.
    @Test func theTablesPreambleQuotesAndCRLFAreRead() throws {
        let body = "No errors\r\nNo warnings\r\n12 ms\r\ndata source=metars\r\n1 results\r\n"
            + "raw_text,station_id,observation_time,latitude,longitude,temp_c,dewpoint_c,wind_dir_degrees,wind_speed_kt\r\n"
            + "\"KXYZ 260750Z 27005KT \"\"Q\"\", X\",KXYZ,2026-11-26T07:50:00.000Z,40,-100,0,-20,270,5\r\n"
        let feed = try MetarFeed.parse(Array(body.utf8))
        let station = try #require(feed.stations.first)
        #expect(feed.errors.isEmpty && feed.stations.count == 1)
        #expect(station.id == "KXYZ" && station.temperature == 32 && station.windDirection == 270)
        #expect(station.details?.summary == #"KXYZ 260750Z 27005KT "Q", X"# && station.details?.observedAt == 1_795_679_400)
        // RH(0, -20) = 20.588572 % (Magnus, Alduchov-Eskridge).
        #expect(station.details?.humidity == 20.588572)
    }

    /// Each bad record is rejected alone with its reason; the good ones are kept.
    @Test func badRecordsAreRejectedAlone() throws {
        let json = #"""
        [{"icaoId":"GOOD","lat":1,"lon":2,"obsTime":1795679400,"temp":20,"rawOb":"GOOD"},
         {"icaoId":"NOLAT","lon":2,"rawOb":"x"},
         {"icaoId":"BADDIR","lat":1,"lon":2,"wdir":"NNE","rawOb":"x"},
         {"icaoId":"BADVIS","lat":1,"lon":2,"visib":"far","rawOb":"x"},
         {"icaoId":"","lat":1,"lon":2,"rawOb":"x"},
         {"icaoId":"HOT","lat":1,"lon":2,"temp":900,"rawOb":"x"},
         7]
        """#
        let feed = try MetarFeed.parse(Array(json.utf8))
        #expect(feed.stations.map(\.id) == ["GOOD"])
        #expect(feed.errors.map(\.message) == [
            #"record 1 rejected: missing required field "lat""#,
            #"record 2 rejected: field "wdir" must be a number, found the string "NNE""#,
            #"record 3 rejected: field "visib" "far" is neither a number of miles nor "N+""#,
            #"record 4 rejected: field "icaoId" must not be empty"#,
            "record 5 rejected: temperature 1652.0 is outside the physical range [-200, 200] °F",
            "record 6 is a number, not an object",
        ])
        let header = "raw_text,station_id,observation_time,latitude,longitude,temp_c,dewpoint_c,wind_dir_degrees,wind_speed_kt,visibility_statute_mi\n"
        let csv = header + "A,AAAA,2026-11-26T07:50:00Z,1,2,3,1,90,4,10+\n"
            + "B,BBBB,2026-11-26T07:50:00Z,,2,3,1,90,4,10\n"
            + "C,CCCC,2026-11-26T07:50:00Z,1,2,warm,1,90,4,10\n"
            + "D,DDDD,2026-11-26T07:50:00Z,1,2,3,1,90,4\n"
            + "E,EEEE,yesterday,1,2,3,1,90,4,10\n"
            + "F,FFFF,2026-11-26T07:50:00Z,1,2,3,1,90,4,inf\n"
        let table = try MetarFeed.parse(Array(csv.utf8))
        #expect(table.stations.map(\.id) == ["AAAA"])
        #expect(table.errors.map(\.message) == [
            "record 1 rejected: station BBBB has no position (latitude and longitude)",
            #"record 2 rejected: temp_c "warm" is not a number"#,
            "record 3 rejected: has 9 fields, the header has 10",
            #"record 4 rejected: observation_time "yesterday" is not an ISO 8601 UTC time (2024-07-26T12:27:00Z)"#,
            #"record 5 rejected: visibility_statute_mi "inf" is neither a number of miles nor "N+""#,
        ])
        #expect(table.errors.first?.excerpt == "B,BBBB,2026-11-26T07:50:00Z,,2,3,1,90,4,10")
    }

    /// A body of another shape is refused whole, naming what was expected.
    @Test func aBodyOfAnotherShapeIsRefusedWhole() throws {
        let cases: [(String, String)] = [
            (#"[{"id":"K1","name":"x"}]"#, "no element has its shape"),
            ("station,temp\nKSFO,12\n", #"no header line starting "raw_text," was found"#),
            ("raw_text,station_id\nX,KSFO\n", #"the header has no column "observation_time""#),
            ("<html>503</html>", #"no header line starting "raw_text," was found"#),
        ]
        for (body, why) in cases {
            #expect(throws: MessageError("feed body is not \(MetarFeed.expected): \(why); keeping the previous snapshot")) {
                try MetarFeed.parse(Array(body.utf8))
            }
        }
        #expect(throws: MessageError("feed has no valid station record (1 rejected); keeping the previous snapshot")) {
            try MetarFeed.parse(Array(#"[{"icaoId":"K","rawOb":"x"}]"#.utf8))
        }
    }
}
