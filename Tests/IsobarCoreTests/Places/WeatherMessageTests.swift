import Foundation
import Testing
@testable import IsobarCore

/// `weather` (issue 28 item 5) through the three stages as a pipe: places names the point (or
/// looks the place up) and writes `spot`, the filter finds the nearest station within the radius
/// (`ambient`, or `particulars` for a detail), the formatter writes `conditions` or a `report`
/// under the place's name. Exact lines, the radius against a scan, bad requests.
@Suite struct WeatherMessageTests {
    static let dump = [
        GeoNamesDumpTests.row(2643743, "London", "51.50853", "-0.12574", country: "GB", admin1: "ENG", population: "8961989", zone: "Europe/London"),
        GeoNamesDumpTests.row(3060972, "Bratislava", "48.14816", "17.10674", admin1: "02", population: "423737"),
        GeoNamesDumpTests.row(724443, "Košice", "48.71441", "21.25802", population: "225044"),
    ].joined(separator: "\n") + "\n"

    /// The stations of Fixtures/feeds/openweather-group.json (London, Bratislava, New York, Sydney).
    static func snapshot() throws -> [UInt8] {
        let parsed = try FeedFormat.openweather.parse(TestSupport.fixture("feeds/openweather-group.json"), day: .today).feed
        var input = JSONWriter()
        OnXFeed.writeSnapshot(day: .today, stations: parsed.stations, source: .feed, fetchedAt: 1_795_428_100, into: &input)
        return input.bytes
    }

    /// `places | filter | format` on the snapshot, then `lines`: what each stage wrote for the
    /// lines (the snapshot's own output left out).
    static func run(_ lines: [String], gazetteer: Gazetteer?) throws -> (places: [String], filter: [String], format: [String]) {
        let places = PlacesEngine(gazetteer: gazetteer)
        let filter = FilterEngine(wallClock: { 1_795_430_000 })
        var ignored = JSONWriter()
        for line in String(decoding: try snapshot(), as: UTF8.self).split(separator: "\n") {
            Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &ignored) }
        }
        var placed = JSONWriter(), filtered = JSONWriter(), formatted = JSONWriter()
        for line in lines { Array(line.utf8).withUnsafeBytes { places.handle(line: $0, into: &placed) } }
        for line in split(placed) { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 2, into: &filtered) } }
        let formatter = FormatEngine()
        for line in split(filtered) { Array(line.utf8).withUnsafeBytes { formatter.handle(line: $0, into: &formatted) } }
        return (split(placed), split(filtered), split(formatted))
    }

    static func split(_ writer: JSONWriter) -> [String] {
        String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static let london = #"{"id":2643743,"name":"London","admin1":null,"countryCode":"GB","country":"United Kingdom","latitude":51.50853,"longitude":-0.12574,"population":8961989,"timeZone":"Europe/London"}"#

    @Test func aTapNearLondonNamesTheCityAndItsStation() throws {
        let out = try Self.run([#"{"type":"weather","client":"alice","latitude":51.52,"longitude":-0.1}"#], gazetteer: try DefaultGazetteer.make(Self.dump))
        #expect(out.places == [#"{"type":"spot","client":"alice","latitude":51.52,"longitude":-0.1,"radiusKm":50,"place":"# + Self.london + #","placeDistanceKm":2.1907225195351825}"#])
        try #require(out.format.count == 1)
        #expect(out.format[0] == #"{"type":"conditions","client":"alice","day":"today","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","point":{"latitude":51.52,"longitude":-0.1},"radiusKm":50,"place":"# + Self.london + #","placeDistanceKm":2.1907225195351825,"distanceKm":2.19,"bearing":234.3,"title":"London","subtitle":"London (2643743) · 1.4 mi · Today","station":{"id":"2643743","name":"London","coordinate":{"latitude":51.5085,"longitude":-0.1257}},"details":[{"label":"Temperature","value":"44.9 °F","key":"temperature","number":44.906,"unit":"°F"},{"label":"Wind","value":"9.2 mph from E (80°) ←","key":"windSpeed","number":9.171439,"unit":"mph","calm":false,"direction":80},{"label":"Feels like","value":"40.6 °F","key":"feelsLike","number":40.64,"unit":"°F"},{"label":"Low","value":"42.8 °F","key":"temperatureLow","number":42.8,"unit":"°F"},{"label":"High","value":"46.4 °F","key":"temperatureHigh","number":46.4,"unit":"°F"},{"label":"Humidity","value":"81 %","key":"humidity","number":81,"unit":"%"},{"label":"Pressure","value":"29.88 inHg","key":"pressure","number":29.884343,"unit":"inHg"},{"label":"Visibility","value":"6.2 mi","key":"visibility","number":6.213712,"unit":"mi"},{"label":"Wind gusts","value":"16.1 mph","key":"windGust","number":16.105941,"unit":"mph"},{"label":"Cloud cover","value":"90 %","key":"cloudCover","number":90,"unit":"%"},{"label":"Conditions","value":"light intensity drizzle","key":"summary"},{"label":"Sunrise","value":"07:03 UTC","key":"sunrise","time":1795417380,"zone":"UTC","local":"2026-11-23T07:03:00+00:00"},{"label":"Sunset","value":"15:42 UTC","key":"sunset","time":1795448520,"zone":"UTC","local":"2026-11-23T15:42:00+00:00"},{"label":"Observed","value":"2026-11-23 10:40 UTC","key":"observedAt","time":1795430400,"zone":"UTC","local":"2026-11-23T10:40:00+00:00"},{"label":"Coordinates","value":"51.5085° N, 0.1257° W","key":"coordinates","latitude":51.5085,"longitude":-0.1257}],"icon":"rain","current":{"city":"London","state":null,"country":"United Kingdom","countryCode":"GB","temperature":44.906,"humidity":81,"pressure":1012,"windSpeed":9.171439,"windDirection":80},"snapshot":"today-3d98c1ce158951d2","source":"feed","fetchedAt":1795428100,"ageSeconds":0}"#)
    }

    @Test func aPlaceIDWithoutAStationInReachSaysSoAndAWiderRadiusFindsOne() throws {
        let gazetteer = try DefaultGazetteer.make(Self.dump)
        let out = try Self.run([#"{"type":"weather","client":"alice","id":724443,"units":"metric"}"#,
                                #"{"type":"weather","client":"alice","id":724443,"radiusKm":400,"units":"metric","locale":"sk"}"#], gazetteer: gazetteer)
        try #require(out.format.count == 2)
        let none = try Self.object(out.format[0])
        #expect(none["title"] as? String == "Košice")
        #expect(none["subtitle"] as? String == "no station within 50 km · Today")
        #expect(none["station"] is NSNull && (none["details"] as? [Any])?.isEmpty == true && none["distanceKm"] == nil)
        #expect(none["current"] as? NSDictionary == ["city": "Košice", "state": NSNull(), "country": "Slovakia", "countryCode": "SK",
                                                     "temperature": NSNull(), "humidity": NSNull(), "pressure": NSNull(),
                                                     "windSpeed": NSNull(), "windDirection": NSNull()])
        let wide = try Self.object(out.format[1])
        #expect(wide["subtitle"] as? String == "Bratislava (3060972) · 312,6 km · Dnes")
        #expect((wide["station"] as? [String: Any])?["id"] as? String == "3060972")
        #expect(wide["distanceKm"] as? Double == 312.645)
        let current = try #require(wide["current"] as? [String: Any])
        #expect(current["humidity"] as? Int == 86 && current["pressure"] as? Int == 1027 && current["city"] as? String == "Košice")
    }

    @Test func theOceanHasNoPlaceAndNoStation() throws {
        let out = try Self.run([#"{"type":"weather","client":"alice","latitude":0,"longitude":-30,"radiusKm":10}"#], gazetteer: try DefaultGazetteer.make(Self.dump))
        #expect(out.places == [#"{"type":"spot","client":"alice","latitude":0,"longitude":-30,"radiusKm":10,"place":null,"placeDistanceKm":null}"#])
        #expect(out.format == [#"{"type":"conditions","client":"alice","day":"today","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","point":{"latitude":0,"longitude":-30},"radiusKm":10,"place":null,"placeDistanceKm":null,"title":"0.0000° N, 30.0000° W","subtitle":"no station within 10 km · Today","station":null,"details":[],"current":{"city":null,"state":null,"country":null,"countryCode":null,"temperature":null,"humidity":null,"pressure":null,"windSpeed":null,"windDirection":null},"snapshot":"today-3d98c1ce158951d2","source":"feed","fetchedAt":1795428100,"ageSeconds":0}"#])
    }

    @Test func aPlaceDetailIsTheStationsReportUnderThePlacesName() throws {
        let out = try Self.run([#"{"type":"weather","client":"zuzana","id":3060972,"detail":true,"units":"metric","locale":"sk"}"#],
                               gazetteer: try DefaultGazetteer.make(Self.dump))
        try #require(out.filter.count == 1 && out.format.count == 1)
        #expect(out.filter[0].hasPrefix(#"{"type":"particulars","client":"zuzana","id":"3060972","day":"today","snapshot":"today-3d98c1ce158951d2","source":"feed","fetchedAt":1795428100,"ageSeconds":0,"units":"metric","locale":"sk","point":{"latitude":48.14816,"longitude":17.10674},"radiusKm":50,"place":{"id":3060972,"name":"Bratislava","#))
        #expect(out.format[0].hasPrefix(#"{"type":"report","client":"zuzana","id":"3060972","day":"today","units":"metric","windUnit":"kmh","locale":"sk","title":"Bratislava","subtitle":"Bratislava (3060972) · 0,0 km · Dnes","coordinate":{"latitude":48.1482,"longitude":17.1067},"details":[{"label":"Teplota","value":"-1,5 °C","key":"temperature","number":-1.5,"unit":"°C"}"#))
        let report = try Self.object(out.format[0])
        #expect((report["place"] as? [String: Any])?["country"] as? String == "Slovakia")
        #expect(report["distanceKm"] as? Double == 0.005)
        #expect(report["hourly"] is [Any])
    }

    @Test func withoutAGazetteerAPointStillGetsTheWeatherAndAPlaceIDIsAnError() throws {
        let out = try Self.run([#"{"type":"weather","client":"alice","latitude":48.15,"longitude":17.1}"#,
                                #"{"type":"weather","client":"alice","id":3060972}"#], gazetteer: nil)
        try #require(out.places.count == 2)
        #expect(out.places[0] == #"{"type":"spot","client":"alice","latitude":48.15,"longitude":17.1,"radiusKm":50,"place":null,"placeDistanceKm":null}"#)
        #expect(out.places[1].hasPrefix(#"{"type":"error","stage":"places","message":"no gazetteer is loaded","#))
        let conditions = try Self.object(out.format[0])
        #expect(conditions["title"] as? String == "Bratislava" && conditions["place"] is NSNull)
    }

    @Test(arguments: [
        (#"{"type":"weather","client":"a"}"#, "a weather request needs \"latitude\" and \"longitude\", or a place \"id\""),
        (#"{"type":"weather","client":"a","id":1,"latitude":0,"longitude":0}"#, "a weather request takes a coordinate or a place \"id\", not both"),
        (#"{"type":"weather","client":"a","latitude":0}"#, "missing required field \"longitude\""),
        (#"{"type":"weather","client":"a","latitude":91,"longitude":0}"#, "latitude 91.0 is outside [-90, 90]"),
        (#"{"type":"weather","client":"a","id":-4}"#, "id -4 is not a positive GeoNames id"),
        (#"{"type":"weather","client":"a","id":5}"#, "unknown place id 5"),
        (#"{"type":"weather","client":"a","id":3060972,"radiusKm":0}"#, "radiusKm 0.0 is outside (0, 20016]"),
        (#"{"type":"weather","client":"a","id":3060972,"radiusKm":20016.5}"#, "radiusKm 20016.5 is outside (0, 20016]"),
        (#"{"type":"weather","client":"a","id":3060972,"detail":"yes"}"#, "field \"detail\" must be true or false, found a string"),
        (#"{"type":"weather","client":"a","id":3060972,"day":"monday"}"#, "field \"day\" must be one of \"today\", \"tomorrow\", found \"monday\""),
    ])
    func badRequestsAreOneErrorToTheClient(_ line: String, _ message: String) throws {
        let out = try Self.run([line], gazetteer: try DefaultGazetteer.make(Self.dump))
        try #require(out.places.count == 1)
        let error = try Self.object(out.places[0])
        #expect(error["type"] as? String == "error" && error["stage"] as? String == "places" && error["client"] as? String == "a")
        #expect(error["message"] as? String == message)
    }

    @Test func aBadSpotIsTheFiltersError() throws {
        let filter = FilterEngine()
        var out = JSONWriter()
        for line in [#"{"type":"spot","client":"a","latitude":0,"longitude":0,"place":{"id":1}}"#,
                     #"{"type":"spot","client":"a","latitude":0,"longitude":0,"placeDistanceKm":3}"#] {
            Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &out) }
        }
        let lines = Self.split(out)
        #expect(try lines.map { try Self.object($0)["message"] as? String } == [
            "missing required field \"name\"", "field \"placeDistanceKm\" must be a non-negative number beside a place"])
    }

    /// The station named for 3,000 random points and radii is the one a scan of every station finds
    /// nearest (haversine, smaller id on a tie) when it is within the radius, and none otherwise.
    @Test func theStationInReachAgreesWithAScan() throws {
        var random = SystemRandomNumberGenerator()
        var stations: [Station] = []
        for index in 0..<400 {
            let latitude = index < 4 ? [90.0, -90, 0, 0][index] : Double.random(in: -90...90, using: &random)
            let longitude = index < 4 ? [0.0, 0, 180, -179.99][index] : Double.random(in: -180...180, using: &random)
            stations.append(Station(id: "S\(index)", name: "", coordinate: Coordinate(latitude: latitude, longitude: longitude), temperature: 50))
        }
        var input = JSONWriter()
        OnXFeed.writeSnapshot(day: .today, stations: stations, source: .feed, fetchedAt: 1_795_428_100, into: &input)
        let filter = FilterEngine(wallClock: { 1_795_430_000 })
        var ignored = JSONWriter()
        for line in Self.split(input) { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &ignored) } }
        var mismatches: [String] = []
        for _ in 0..<3_000 {
            let point = Coordinate(latitude: Double.random(in: -90...90, using: &random), longitude: Double.random(in: -180...180, using: &random))
            let radius = [10.0, 300, 1_000, 3_000, 20_016][Int.random(in: 0..<5, using: &random)]
            var best: (h: Double, id: String, coordinate: Coordinate)?
            for station in stations {
                let h = GreatCircle.haversine(point, station.coordinate)
                if best == nil || h < best!.h || (h == best!.h && station.id.utf8.lexicographicallyPrecedes(best!.id.utf8)) { best = (h, station.id, station.coordinate) }
            }
            let expected = best.flatMap { GreatCircle.distanceKm(point, $0.coordinate) <= radius ? $0.id : nil }
            var out = JSONWriter()
            Spot(client: "a", point: point, radiusKm: radius).write(to: &out)
            var answer = JSONWriter()
            out.bytes.dropLast().withUnsafeBytes { filter.handle(line: $0, now: 2, into: &answer) }
            let ambient = try Self.object(Self.split(answer)[0])
            let found = (ambient["station"] as? [String: Any])?["id"] as? String
            if found != expected { mismatches.append("\(point) r=\(radius): \(found ?? "none") vs \(expected ?? "none")") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
