import Testing
@testable import IsobarCore

/// The client's one-pass reader of `annotations` lines (`AnnotationSet.apply(storage:)`,
/// `AnnotationItemScan`) against its general reader (`apply(_:)` on the parsed line): the same
/// outcome, error and set after every line, for the formatter's real output and for lines broken
/// on purpose, and the one-pass reader really taking the formatter's lines.
@Suite struct ClientOnePassTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the one-pass reader takes `line` whole (else `apply(storage:)` falls back).
    func taken(_ line: [UInt8]) -> Bool {
        var items: [ScannedItem] = []
        return (try? JSONObject(storage: line, reading: "upsert", with: { $0.readElements(into: &items) { AnnotationItemScan.item(&$0) } })) != nil
    }

    /// The formatter's `annotations` lines for random world viewports of a few clients (stations
    /// and clusters, every field, unit and locale, stale marks, full sets and diffs), in order.
    func formatterLines(seed: UInt64, count: Int) throws -> [[UInt8]] {
        var options = FilterOptions()
        options.staleAfter = 3_600
        let filter = FilterEngine(options: options, wallClock: { 1_000 + Double(seed % 2) * 7_200 })
        let stations = try TestSupport.world().enumerated().map { n, station in
            var windy = station
            windy.windSpeed = Double(n % 40)
            windy.windDirection = Double(n * 37 % 360)
            return windy
        }
        let snapshot = TestSupport.snapshotLines(day: .today, stations: stations)
        var random = TestSupport.Random(seed: seed)
        var visible = JSONWriter()
        for line in snapshot { line.withUnsafeBytes { filter.handle(line: $0, now: 1_000, into: &visible) } }
        let extras = [#","limit":5"#, #","field":"wind","units":"metric","locale":"sk""#, #","field":"precipitation""#,
                      #","field":"wind","windUnit":"knots","limit":40"#, ""]
        for n in 0..<count {
            let lat = random.uniform(-80...80), lon = random.uniform(-180...180)
            let dlat = random.uniform(0.5...30), dlon = random.uniform(0.5...60)
            // Each client keeps its presentation (a change of it sends a full set, not a diff).
            let viewport = #"{"type":"viewport","client":"c\#(n % extras.count)","center":{"latitude":\#(lat),"longitude":\#(lon)},"#
                + #""span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)}\#(extras[n % extras.count])}"#
            Array(viewport.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1_000, into: &visible) }
        }
        var out = JSONWriter()
        for line in visible.bytes.split(separator: 0x0A) where text(Array(line)).hasPrefix(#"{"type":"visible""#) {
            Array(line).withUnsafeBytes { FormatEngine().handle(line: $0, into: &out) }
        }
        return out.bytes.split(separator: 0x0A).map(Array.init)
    }

    @Test func formatterOutputTakesTheOnePassWithTheSameSets() throws {
        var clusters = 0, stale = 0, wind = 0, diffs = 0, held = 0
        for seed: UInt64 in [5, 6] {
            let lines = try formatterLines(seed: seed, count: 120)
            #expect(lines.count > 90)
            var onePass: [String: AnnotationSet] = [:], general: [String: AnnotationSet] = [:]
            for line in lines {
                let object = try JSONObject(storage: line)
                let client = try object.requireString("client")
                #expect(try object.requireString("type") == "annotations")
                #expect(taken(line), "the one-pass reader declined the formatter's own line \(text(line).prefix(200))")
                TestSupport.applyBoth(line, &onePass[client, default: AnnotationSet()], &general[client, default: AnnotationSet()])
                held += onePass[client]?.items.count ?? 0
                let out = text(line)
                clusters += out.components(separatedBy: #""cluster":true"#).count - 1
                stale += out.components(separatedBy: #""stale":true"#).count - 1
                wind += out.components(separatedBy: #""wind":{"#).count - 1
                if out.contains(#""full":false"#) { diffs += 1 }
            }
        }
        // The lines exercise what the reader must handle.
        #expect(held > 3_000 && clusters > 100 && stale > 100 && wind > 100 && diffs > 50,
                "held \(held), clusters \(clusters), stale \(stale), wind \(wind), diffs \(diffs)")
    }

    /// A set that keeps detail (subtitle, cluster, the wind's rotation: what `IsobarClient` shows)
    /// reads the formatter's lines in one pass too, into the same set as the general reader.
    @Test func withDetailTheOnePassKeepsWhatTheGeneralReaderKeeps() throws {
        var onePass: [String: AnnotationSet] = [:], general: [String: AnnotationSet] = [:]
        var rotations = 0, clusters = 0, subtitles = 0
        for line in try formatterLines(seed: 7, count: 120) {
            let client = try JSONObject(storage: line).requireString("client")
            var items: [ScannedItem] = []
            #expect((try? JSONObject(storage: line, reading: "upsert", with: { $0.readElements(into: &items) { AnnotationItemScan.item(&$0, keepsDetail: true) } })) != nil)
            rotations += items.filter { $0.rotation != nil }.count
            clusters += items.filter(\.cluster).count
            subtitles += items.filter { !$0.subtitle.range.isEmpty }.count
            TestSupport.applyBoth(line, &onePass[client, default: AnnotationSet(keepsDetail: true)], &general[client, default: AnnotationSet(keepsDetail: true)])
        }
        #expect(rotations > 100 && clusters > 50 && subtitles > 1_000, "rotations \(rotations), clusters \(clusters), subtitles \(subtitles)")
    }

    /// Hand-made items around every rule of the item reader: each gives the general reader's
    /// outcome and set, whichever reader takes it.
    @Test(arguments: [
        (#"{"id":"K1","coordinate":{"latitude":1.5,"longitude":2},"title":"50°","subtitle":"A","value":50}"#, true),
        (#"{ "coordinate" : { "longitude":2 , "latitude":1.5 } , "id":"K1" ,"title":null,"value":null,"stale":false}"#, true),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"wind":{"speed":3,"unit":"mph","calm":false}}"#, true),
        (#"{"id":"c:1","coordinate":{"latitude":1,"longitude":2},"title":"4","cluster":true,"count":12,"stale":true}"#, true),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"count":null,"stale":null}"#, true),
        (#"{"id":"K1","coordinate":{"latitude":-0,"longitude":-0.0}}"#, true),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"a \"b\" \u00e9"}"#, true),
        (#"{"id":"K\u00e91","coordinate":{"latitude":1,"longitude":2}}"#, true),
        // unknown keys, escaped keys, extra coordinate members: the general reader's
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"observedAt":5}"#, false),
        (#"{"i\u0064":"K1","coordinate":{"latitude":1,"longitude":2}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2,"altitude":3}}"#, false),
        // wrong kinds and values: errors
        (#"{"id":"K1","coordinate":{"latitude":"1","longitude":2}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":91,"longitude":2}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":-180.5}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1e400,"longitude":2}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"latitude":1,"longitude":2}}"#, false),
        (#"{"id":"K1","coordinate":[1,2]}"#, false),
        (#"{"id":"K1"}"#, false),
        (#"{"id":"","coordinate":{"latitude":1,"longitude":2}}"#, false),
        (#"{"id":7,"coordinate":{"latitude":1,"longitude":2}}"#, false),
        (#"{"coordinate":{"latitude":1,"longitude":2}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":5}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"count":1.5}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"count":1e16}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"count":"3"}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"stale":"yes"}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"id":"K2"}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"value":1,"value":2}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"wind":{"a":1,"a":2}}"#, false),
        (#"{"id":"K1","coordinate":{"latitude":1,"longitude":2},}"#, false),
        (#"{}"#, false),
    ])
    func oneItem(_ item: String, takenInOnePass: Bool) {
        // Each item as the second of a diff, after a full set holding one station.
        let full = #"{"type":"annotations","client":"a","version":1,"full":true,"day":"today","field":"temperature","snapshot":"s","source":"feed","fetchedAt":5,"upsert":[{"id":"K0","coordinate":{"latitude":0,"longitude":0},"title":"1"}],"remove":[]}"#
        let line = Array(#"{"type":"annotations","client":"a","version":2,"full":false,"day":"tomorrow","field":"wind","upsert":[\#(item)],"remove":["K0"]}"#.utf8)
        var onePass = AnnotationSet(), general = AnnotationSet()
        TestSupport.applyBoth(Array(full.utf8), &onePass, &general)
        #expect(taken(line) == takenInOnePass, "\(item)")
        TestSupport.applyBoth(line, &onePass, &general)
    }

    /// Lines broken around the items array, and the formatter's lines with bytes changed at
    /// random: the same outcome or error and the same set from both readers.
    @Test func brokenLinesGiveTheSameOutcomeAndSet() throws {
        let shapes = [
            #"{"type":"annotations","version":1,"full":true,"upsert":[]}"#,
            #"{"type":"annotations","version":1,"full":true,"upsert":[ ] ,"remove":[]}"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}}"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}},]}"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}}],"upsert":[]}"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}} {"id":"L"}]}"#,
            #"{"version":1,"full":true,"upsert":[7,{"id":"K","coordinate":{"latitude":1,"longitude":2}}]}"#,
            #"{"version":1,"full":true,"upsert":{"id":"K"}}"#,
            #"{"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}}]}"#,
            #"{"version":1,"full":true,"day":"someday","upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}}]}"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}},{"id":"L"}]}"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2}}]} x"#,
            #"{"version":1,"full":true,"upsert":[{"id":"K","coordinate":{"latitude":1,"longitude":2},"subtitle":"\ud800"}]}"#,
            "not json",
        ]
        for shape in shapes {
            var onePass = AnnotationSet(), general = AnnotationSet()
            TestSupport.applyBoth(Array(shape.utf8), &onePass, &general)
        }
        var random = TestSupport.Random(seed: 41)
        var declined = 0
        let lines = try formatterLines(seed: 8, count: 50)
        var onePass: [String: AnnotationSet] = [:], general: [String: AnnotationSet] = [:]
        for line in lines {
            let client = try JSONObject(storage: line).requireString("client")
            // The real line, then broken copies of it, each applied after a copy of the sets.
            for _ in 0..<30 {
                let broken = random.broken(line, after: 30)
                if !taken(broken) { declined += 1 }
                var a = onePass[client, default: AnnotationSet()], b = general[client, default: AnnotationSet()]
                TestSupport.applyBoth(broken, &a, &b)
            }
            TestSupport.applyBoth(line, &onePass[client, default: AnnotationSet()], &general[client, default: AnnotationSet()])
        }
        #expect(declined > 300)  // most changes break the line or an item: the general reader answers
    }

    /// `apply(bytes:)` (a line where it lies, as the benchmark's clients apply what the bus client
    /// hands over) against `apply(storage:)`: the same outcome or error and the same set, for the
    /// formatter's lines and broken copies of them (which take the general reader).
    @Test func applyingInPlaceGivesWhatApplyingAnArrayGives() throws {
        func outcome(_ apply: () throws(MessageError) -> AnnotationSet.Outcome) -> String {
            do { return "\(try apply())" } catch { return "error: \(error.message)" }
        }
        var random = TestSupport.Random(seed: 43)
        var inPlace: [String: AnnotationSet] = [:], copied: [String: AnnotationSet] = [:]
        var errors = 0, applied = 0
        for line in try formatterLines(seed: 9, count: 40) {
            let client = try JSONObject(storage: line).requireString("client")
            for n in 0..<11 {
                // Ten broken copies applied to copies of the sets, then the real line to the sets.
                let bytes = n < 10 ? random.broken(line, after: 30) : line
                var a = inPlace[client, default: AnnotationSet()], b = copied[client, default: AnnotationSet()]
                let first = bytes.withUnsafeBytes { bytes in outcome { () throws(MessageError) in try a.apply(bytes: bytes) } }
                let second = outcome { () throws(MessageError) in try b.apply(storage: bytes) }
                #expect(first == second, "outcomes differ for \(text(bytes).prefix(300))")
                #expect(TestSupport.state(a) == TestSupport.state(b), "sets differ after \(text(bytes).prefix(300))")
                if first.hasPrefix("error") { errors += 1 }
                if first == "applied" { applied += 1 }
                if n == 10 { inPlace[client] = a; copied[client] = b }
            }
        }
        #expect(errors > 20 && applied > 20, "errors \(errors), applied \(applied)")
    }
}
