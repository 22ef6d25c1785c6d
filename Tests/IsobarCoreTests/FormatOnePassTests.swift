import Testing
@testable import IsobarCore

/// The formatter's one-pass reader of `visible` lines (`FormatEngine.annotationsInOnePass`,
/// `AnnotationInput.scan`) against its general path (`onePass` off): the same bytes out for every
/// line, the filter's real output and lines broken on purpose, and the one-pass reader really taking
/// the filter's lines (else the comparison would prove nothing).
@Suite struct FormatOnePassTests {
    /// What each path writes for `line`, and whether the one-pass reader took it.
    func both(_ line: [UInt8]) -> (onePass: [UInt8], general: [UInt8], taken: Bool) {
        var general = FormatEngine()
        general.onePass = false
        var a = JSONWriter(), b = JSONWriter(), c = JSONWriter()
        line.withUnsafeBytes { FormatEngine().handle(line: $0, into: &a) }
        line.withUnsafeBytes { general.handle(line: $0, into: &b) }
        let taken = line.withUnsafeBytes { FormatEngine.startsVisible($0) && FormatEngine().annotationsInOnePass($0, into: &c) }
        return (a.bytes, b.bytes, taken)
    }

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The filter's own `visible` lines for random world viewports: stations and clusters, every
    /// field, unit and locale, stale marks, full sets and diffs.
    func filterLines(seed: UInt64, count: Int) throws -> [[UInt8]] {
        var options = FilterOptions()
        options.staleAfter = 3_600
        let stale = FilterEngine(options: options, wallClock: { 1_000 + 7_200 })  // every station stale
        let fresh = FilterEngine()
        let snapshot = TestSupport.snapshotLines(day: .today, stations: try TestSupport.world())
        var random = TestSupport.Random(seed: seed)
        var lines: [[UInt8]] = []
        let extras = [#","limit":5"#, #","field":"wind","units":"metric","locale":"sk""#, #","field":"precipitation""#,
                      #","field":"wind","windUnit":"knots","limit":40"#, ""]
        for engine in [stale, fresh] {
            var writer = JSONWriter()
            for line in snapshot { line.withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &writer) } }
            for n in 0..<count {
                let lat = random.uniform(-80...80), lon = random.uniform(-180...180)
                let dlat = random.uniform(0.5...60), dlon = random.uniform(0.5...120)
                let viewport = #"{"type":"viewport","client":"c\#(n % 7)","center":{"latitude":\#(lat),"longitude":\#(lon)},"#
                    + #""span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)}\#(extras[n % extras.count])}"#
                Array(viewport.utf8).withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &writer) }
            }
            lines += writer.bytes.split(separator: 0x0A).map(Array.init).filter { text($0).hasPrefix(#"{"type":"visible""#) }
        }
        return lines
    }

    @Test func filterOutputTakesTheOnePathWithTheSameBytes() throws {
        let lines = try filterLines(seed: 7, count: 150)
        #expect(lines.count > 250)
        var clusters = 0, stale = 0, items = 0
        for line in lines {
            let (onePass, general, taken) = both(line)
            #expect(taken, "the one-pass reader declined the filter's own line \(text(line).prefix(200))")
            #expect(text(onePass) == text(general), "outputs differ for \(text(line).prefix(200))")
            let out = text(onePass)
            #expect(out.hasPrefix(#"{"type":"annotations""#))
            clusters += out.components(separatedBy: #""cluster":true"#).count - 1
            stale += out.components(separatedBy: #""stale":true"#).count - 1
            items += out.components(separatedBy: #""coordinate":"#).count - 1
        }
        // The lines exercise what the reader must handle.
        #expect(clusters > 100)
        #expect(stale > 100)
        #expect(items > 5_000)
    }

    /// Hand-made lines around every rule of the item reader: each must give the general path's
    /// bytes (an answer or the same error), whichever path takes it.
    @Test(arguments: [
        // canonical, then the same with members reordered, whitespace and an unknown key
        (#"{"id":"K1","name":"A","latitude":1.5,"longitude":2,"temperature":50,"windSpeed":3,"windDirection":90,"precipitation":10}"#, true),
        (#"{ "latitude" : 1.5 , "id":"K1", "longitude":2,"name":"A" ,"temperature":null}"#, true),
        (#"{"id":"K1","latitude":1.5,"longitude":2,"observedAt":5}"#, false),
        // escapes: in a key, in the id, in the name (decoded), a DEL byte
        (#"{"i\u0064":"K1","latitude":1,"longitude":2}"#, false),
        (#"{"id":"K\u00e91","latitude":1,"longitude":2}"#, false),
        (#"{"id":"K1","name":"Br\u00fcnn \"x\"","latitude":1,"longitude":2}"#, true),
        ("{\"id\":\"K1\",\"name\":\"a\u{7F}b\",\"latitude\":1,\"longitude\":2}", true),
        // wrong kinds and values
        (#"{"id":"K1","latitude":"1","longitude":2}"#, false),
        (#"{"id":"K1","latitude":91,"longitude":2}"#, false),
        (#"{"id":"K1","latitude":1,"longitude":-180.5}"#, false),
        (#"{"id":"K1","latitude":-0,"longitude":-0.0,"temperature":-0}"#, true),
        (#"{"id":"K1","latitude":1,"longitude":2,"temperature":"hot"}"#, false),
        (#"{"id":"K1","latitude":1,"longitude":2,"temperature":1e400}"#, false),
        (#"{"id":"K1","latitude":1,"longitude":2,"temperature":12.345678901}"#, true),
        (#"{"id":"","latitude":1,"longitude":2}"#, false),
        (#"{"id":7,"latitude":1,"longitude":2}"#, false),
        (#"{"latitude":1,"longitude":2}"#, false),
        (#"{"id":"K1","longitude":2}"#, false),
        (#"{"id":"K1","name":5,"latitude":1,"longitude":2}"#, false),
        (#"{"id":"K1","name":null,"latitude":1,"longitude":2}"#, true),
        (#"{"id":"K1","name":"","latitude":1,"longitude":2}"#, true),
        (#"{"id":"K1","latitude":1,"longitude":2,"stale":"yes"}"#, false),
        (#"{"id":"K1","latitude":1,"longitude":2,"stale":false}"#, true),
        (#"{"id":"K1","latitude":1,"longitude":2,"stale":true}"#, true),
        (#"{"id":"K1","latitude":1,"longitude":2,"temperature":{"f":1}}"#, false),
        (#"{"id":"K1","latitude":1,"longitude":2,"id":"K2"}"#, false),
        (#"{"id":"K1","latitude":1,"longitude":2,}"#, false),
        (#"{}"#, false),
        // clusters: count rules; a cluster's name is never read
        (#"{"id":"cluster:3:1:2","cluster":true,"count":12,"latitude":1,"longitude":2,"temperature":40.5,"name":7}"#, true),
        (#"{"id":"cluster:3:1:2","cluster":true,"count":1.5,"latitude":1,"longitude":2}"#, false),
        (#"{"id":"cluster:3:1:2","cluster":true,"count":0,"latitude":1,"longitude":2}"#, false),
        (#"{"id":"cluster:3:1:2","cluster":true,"latitude":1,"longitude":2}"#, false),
        (#"{"id":"cluster:3:1:2","cluster":"true","count":2,"latitude":1,"longitude":2}"#, false),
        (#"{"id":"K1","cluster":false,"count":"x","latitude":1,"longitude":2}"#, true),
        (#"{"id":"K1","cluster":null,"latitude":1,"longitude":2}"#, true),
    ])
    func oneItem(_ item: String, takenInOnePass: Bool) {
        for field in ["temperature", "wind", "precipitation"] {
            let line = #"{"type":"visible","client":"alice","version":2,"full":false,"day":"today","field":"\#(field)","upsert":[\#(item)],"remove":["X"]}"#
            let (onePass, general, taken) = both(Array(line.utf8))
            #expect(taken == takenInOnePass, "\(item)")
            #expect(text(onePass) == text(general), "\(item)")
        }
    }

    /// Lines broken around the items array, and the filter's lines with bytes changed at random:
    /// the same output from both paths, whatever each makes of them.
    @Test func brokenLinesGiveTheSameAnswerOrError() throws {
        let shapes = [
            #"{"type":"visible","client":"a","version":1,"upsert":[]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[ ] ,"remove":[]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2}]"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2},]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2}],"upsert":[]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2} {"id":"L"}]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[7]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[[1]]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":{"id":"K"}}"#,
            #"{"type":"visible","client":"a","upsert":[{"id":"K","latitude":1,"longitude":2}]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2}]} x"#,
            #"{"type":"visible","type":"selection","client":"a","version":1,"upsert":[]}"#,
            #"{"type":"visible","client":"a","version":1,"upsert":[{"id":"K","latitude":1,"longitude":2,"x":"\ud800"}]}"#,
        ]
        for shape in shapes {
            let (onePass, general, _) = both(Array(shape.utf8))
            #expect(text(onePass) == text(general), "\(shape)")
        }
        var random = TestSupport.Random(seed: 99)
        var declined = 0
        for line in try filterLines(seed: 3, count: 40).prefix(60) {
            for _ in 0..<40 {
                let broken = random.broken(line, after: 18)
                let (onePass, general, taken) = both(broken)
                if !taken { declined += 1 }
                #expect(text(onePass) == text(general), "outputs differ for \(text(broken).prefix(300))")
            }
        }
        #expect(declined > 500)  // most changes break the line or an item: the general path answers
    }
}
