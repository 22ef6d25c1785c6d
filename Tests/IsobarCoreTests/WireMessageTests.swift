import Testing
@testable import IsobarCore

/// The typed wire messages (`Visible`, `Selection`, `Annotations`, `Callout`, `Select`) against
/// what the engines write: every line the filter and the formatter produce over a run of pans,
/// zooms (clusters), toggles and selections decodes into its type and writes back byte for byte,
/// so the engines' streamed hot paths and the types cannot drift apart; and exact values for one
/// message of each kind.
@Suite struct WireMessageTests {
    /// Filter then formatter over the onX fixture: every message of both stages, as lines.
    func run() throws -> (filter: [[UInt8]], format: [[UInt8]]) {
        let engine = FilterEngine()
        var filtered = JSONWriter()
        let lines = TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today), id: "today-1", fetchedAt: 1_000)
            + TestSupport.snapshotLines(day: .tomorrow, stations: try TestSupport.onx(.tomorrow), id: "tomorrow-1", fetchedAt: 1_000)
        var inputs = lines.map { String(decoding: $0, as: UTF8.self) }
        func viewport(_ lat: Double, _ lon: Double, _ span: Double, _ extra: String = "") -> String {
            #"{"type":"viewport","client":"alice","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":\#(span),"longitudeDelta":\#(span * 1.25)}\#(extra)}"#
        }
        inputs += [
            viewport(40.924, -108.0955, 20),
            #"{"type":"select","client":"alice","id":"K1D3"}"#,
            viewport(40.924, -108.0955, 20, #","field":"wind","units":"metric","locale":"sk""#),
            viewport(41.5, -104, 6, #","field":"precipitation","day":"tomorrow""#),
            viewport(40, -100, 40, #","limit":12"#),          // clusters
            viewport(40, -101, 40, #","limit":12,"field":"wind""#),
            #"{"type":"select","client":"alice","id":null}"#,
            viewport(-40, 100, 2),                               // nothing there: everything removed
        ]
        for input in inputs {
            TestSupport.withLine(input) { engine.handle(line: $0, now: 1_000, into: &filtered) }
        }
        var formatted = JSONWriter()
        let filterLines = filtered.bytes.split(separator: 0x0A).map(Array.init)
        for line in filterLines { line.withUnsafeBytes { FormatEngine().handle(line: $0, into: &formatted) } }
        return (filterLines, formatted.bytes.split(separator: 0x0A).map(Array.init))
    }

    func type(_ line: [UInt8]) -> String? { try? JSONObject(storage: line).requireString("type") }

    func rewritten(_ line: [UInt8]) throws -> [UInt8] {
        let object = try JSONObject(storage: line)
        var writer = JSONWriter()
        switch type(line) {
        case "visible": try Visible(from: object).write(to: &writer)
        case "selection": try Selection(from: object).write(to: &writer)
        case "annotations": try Annotations(from: object).write(to: &writer)
        case "callout": try Callout(from: object).write(to: &writer)
        default: Issue.record("unexpected \(type(line) ?? "?")")
        }
        return Array(writer.bytes.dropLast())  // the newline
    }

    @Test func everyEngineLineRoundTripsThroughItsType() throws {
        let (filter, format) = try run()
        let kinds = (filter + format).compactMap(type)
        // The run covers every kind, clusters and removals.
        #expect(Set(kinds) == ["visible", "selection", "annotations", "callout"])
        #expect(kinds.filter { $0 == "visible" }.count == 6)
        #expect(filter.contains { String(decoding: $0, as: UTF8.self).contains(#""cluster":true"#) })
        for line in filter + format {
            let text = String(decoding: line, as: UTF8.self)
            #expect(String(decoding: try rewritten(line), as: UTF8.self) == text)
        }
    }

    @Test func annotationsDecodeToExactValues() throws {
        let (_, format) = try run()
        let wind = try #require(format.filter { type($0) == "annotations" }.dropFirst().first)
        let message = try Annotations(from: JSONObject(storage: wind))
        #expect(message.client == "alice" && message.version == 2 && message.day == .today)
        #expect(message.full)  // a toggle replaces every title: a full set
        #expect(message.presentation == ResolvedPresentation(field: .wind, units: .metric, locale: .sk))
        #expect(message.snapshot == SnapshotInfo(id: "today-1", source: "feed", fetchedAt: 1_000, ageSeconds: 0))
        let platte = try #require(message.upsert.first { $0.id == "K1D3" })
        #expect(platte == Annotations.Item(id: "K1D3", coordinate: Coordinate(latitude: 43.40332, longitude: -98.82952),
                                           title: "11 km/h Z →", subtitle: "PLATTE",
                                           wind: Annotations.Wind(speed: 11.1, unit: "km/h", calm: false, from: "Z", fromDegrees: 270,
                                                                  to: "V", arrow: "→", rotation: 90)))
    }

    @Test func calloutAndSelectionDecodeToExactValues() throws {
        let (filter, format) = try run()
        let selection = try Selection(from: JSONObject(storage: try #require(filter.first { type($0) == "selection" })))
        #expect(selection.reason == "selected" && selection.id == "K1D3" && !selection.stale)
        #expect(selection.station?.name == "PLATTE" && selection.station?.temperature == 46.4)
        let callouts = try format.filter { type($0) == "callout" }.map { try Callout(from: JSONObject(storage: $0)) }
        #expect(callouts.map(\.reason) == ["selected", "updated", "not-visible"])  // K1D3 is outside the third view
        #expect(callouts.last?.content == nil)
        let first = try #require(callouts.first?.content)
        #expect(first.title == "PLATTE" && first.subtitle == "K1D3 · Today")
        #expect(first.details.first == Callout.Line(label: "Temperature", value: "46.4 °F",
                                                    data: LineData(key: "temperature", number: 46.4, unit: "°F")))
    }

    @Test func selectWritesWhatTheFilterReads() throws {
        for select in [Select(client: "alice", id: "K1D3"), Select(client: "bob", id: nil)] {
            var writer = JSONWriter()
            select.write(to: &writer)
            #expect(try Select(from: JSONObject(storage: Array(writer.bytes.dropLast()))) == select)
        }
    }

    @Test func clusterIDsParseOnlyInTheirRanges() {
        let key = Cluster.key(level: -3, row: 17, column: 4_000)
        #expect(Cluster.key(forID: Cluster.id(forKey: key)) == key)
        for bad in ["cluster:1:2", "cluster:x:1:2", "cluster:64:0:0", "cluster:0:-1:0", "cluster:0:0:16777216", "station:0:0:0"] {
            #expect(Cluster.key(forID: bad) == nil, "\(bad)")
        }
    }

    /// `Cluster.writeID` (the filter's writer, no String) writes what `string(Cluster.id(forKey:))` does.
    @Test func clusterIDsWriteAsTheirString() {
        var random = TestSupport.Random(seed: 5)
        let fixed = [(-64, 0, 0), (63, 0xFF_FFFF, 0xFF_FFFF), (-1, 9, 10), (0, 0, 0), (-10, 123_456, 7), (7, 99, 100)]
        let keys = fixed.map { Cluster.key(level: $0.0, row: $0.1, column: $0.2) } + (0..<500).map { _ in
            Cluster.key(level: Int(random.next() % 128) - 64, row: Int(random.next() % 0x100_0000), column: Int(random.next() % 0x100_0000))
        }
        for key in keys {
            var direct = JSONWriter(), viaString = JSONWriter()
            direct.arrayStart(); viaString.arrayStart()
            for _ in 0..<2 {
                Cluster.writeID(forKey: key, into: &direct)
                viaString.string(Cluster.id(forKey: key))
            }
            #expect(String(decoding: direct.bytes, as: UTF8.self) == String(decoding: viaString.bytes, as: UTF8.self))
        }
    }

    @Test func typedAnnotationsApplyLikeTheirJSON() throws {
        let (_, format) = try run()
        var fromJSON = AnnotationSet()
        var typed = AnnotationSet()
        for line in format where type(line) == "annotations" {
            let object = try JSONObject(storage: line)
            #expect(try fromJSON.apply(object) == typed.apply(Annotations(from: object)))
            #expect(fromJSON.items == typed.items && fromJSON.version == typed.version)
        }
        #expect(typed.items.isEmpty && typed.version == 6)
    }
}
