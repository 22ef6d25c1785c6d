import Testing
@testable import IsobarCore

@Suite struct FormatEngineTests {
    func format(_ line: String, defaults: ResolvedPresentation = ResolvedPresentation()) -> [JSONObject] {
        var writer = JSONWriter()
        TestSupport.withLine(line) { FormatEngine(defaults: defaults).handle(line: $0, into: &writer) }
        return TestSupport.objects(writer)
    }

    func station(_ id: String, _ day: Day = .today) throws -> Station {
        try #require(try TestSupport.onx(day).first { $0.id == id })
    }

    func visibleLine(_ stations: [Station], _ presentation: Presentation = Presentation()) -> String {
        var writer = JSONWriter()
        Visible(client: "alice", version: 3, full: true, day: .today, presentation: presentation,
                upsert: stations.map { .station($0, stale: false) }, remove: ["KGONE"]).write(to: &writer)
        return String(decoding: writer.bytes.dropLast(), as: UTF8.self)
    }

    @Test func temperatureTitlesAndUnknowns() throws {
        let out = format(visibleLine([try station("K1D3"), try station("K6V4")]))
        let message = try #require(out.first)
        #expect(message.str("type") == "annotations")
        #expect(message.num("version") == 3)
        #expect(message.strings("remove") == ["KGONE"])
        let titles = message.objects("upsert").map { $0.str("title") }
        #expect(titles == ["46°", ""])
        let first = try #require(message.objects("upsert").first)
        let coordinate = try #require(first.object(first.field("coordinate")!))
        #expect(coordinate.num("latitude") == 43.40332)
    }

    @Test func windTitleHasSpeedCompassAndArrow() throws {
        let out = format(visibleLine([try station("K1D3"), try station("K6V4")], Presentation(field: .wind)))
        let items = try #require(out.first).objects("upsert")
        #expect(items[0].str("title") == "7 mph W →")
        let wind = try #require(items[0].object(items[0].field("wind")!))
        #expect(wind.str("from") == "W")
        #expect(wind.str("to") == "E")
        #expect(wind.str("arrow") == "→")
        #expect(wind.num("rotation") == 90)
        #expect(items[1].str("title") == "")  // K6V4: no wind
        let knots = format(visibleLine([try station("K1D3")], Presentation(field: .wind, windUnit: .knots)))
        #expect(knots.first?.objects("upsert").first?.str("title") == "6 kn W →")
        let metric = format(visibleLine([try station("K1D3")], Presentation(field: .wind, units: .metric, locale: .sk)))
        #expect(metric.first?.objects("upsert").first?.str("title") == "11 km/h Z →")
    }

    @Test(arguments: [(0.0, "N", "↓", 180.0), (360, "N", "↓", 180), (270, "W", "→", 90), (90, "E", "←", 270),
                      (22.5, "NNE", "↙", 202.5), (225, "SW", "↗", 45), (349, "N", "↓", 169)])
    func compass(_ degrees: Double, _ point: String, _ arrow: String, _ rotation: Double) {
        #expect(Compass.point(from: degrees) == point)
        #expect(Compass.arrow(from: degrees) == arrow)
        #expect(Compass.rotation(from: degrees) == rotation)
    }

    @Test func calmAndPrecipitation() throws {
        var calm = try station("K1D3")
        calm.windSpeed = 0
        calm.windDirection = 0
        #expect(format(visibleLine([calm], Presentation(field: .wind))).first?.objects("upsert").first?.str("title") == "calm")
        let rain = format(visibleLine([try station("K1S5")], Presentation(field: .precipitation)))
        #expect(rain.first?.objects("upsert").first?.str("title") == "80%")
        let celsius = format(visibleLine([try station("K1D3")]), defaults: ResolvedPresentation(units: .metric))
        #expect(celsius.first?.objects("upsert").first?.str("title") == "8°")
    }

    @Test func calloutListsKnownValuesWithUnits() throws {
        var writer = JSONWriter()
        Selection(client: "alice", id: "K6V4", day: .today, reason: "selected", station: try station("K6V4")).write(to: &writer)
        let out = format(String(decoding: writer.bytes, as: UTF8.self))
        let callout = try #require(out.first)
        #expect(callout.str("type") == "callout")
        #expect(callout.str("title") == "WALLMUNC")
        let details = callout.objects("details").map { "\($0.str("label")!): \($0.str("value")!)" }
        #expect(details == ["Chance of precipitation: 0 %", "Coordinates: 43.9995° N, 102.2546° W"])
        let clear = format(#"{"type":"selection","client":"alice","id":"K1D3","reason":"not-visible","station":null}"#)
        #expect(clear.first?.field("clear").flatMap { clear.first?.bool($0) } == true)
    }

    @Test func badVisibleGivesOneErrorAndNothingHalfWritten() {
        let out = format(#"{"type":"visible","client":"a","version":1,"upsert":[{"id":"X","latitude":91,"longitude":0}]}"#)
        #expect(out.count == 1)
        #expect(out.first?.str("type") == "error")
        #expect(out.first?.str("message") == "latitude 91.0 is outside [-90, 90]")
    }
}
