import Synchronization
import Testing
@testable import IsobarCore

/// The formatter's reader of the filter's own `visible` layout (`VisibleLineHead`,
/// `FormatEngine.annotationsFromFilterLine`): it takes the filter's lines and writes exactly what
/// the general path writes for them; lines in any other shape are declined and answered the usual
/// way, with the same bytes.
@Suite struct FormatFilterLayoutTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The general path's answer, the default engine's, and whether the layout reader takes the line.
    func paths(_ line: [UInt8]) -> (general: String, fast: String, taken: Bool) {
        var general = FormatEngine()
        general.onePass = false
        var a = JSONWriter(), b = JSONWriter(), c = JSONWriter()
        line.withUnsafeBytes { general.handle(line: $0, into: &a) }
        line.withUnsafeBytes { FormatEngine().handle(line: $0, into: &b) }
        let taken = line.withUnsafeBytes { FormatEngine().annotationsFromFilterLine($0, cache: nil, limits: nil, into: &c) }
        #expect(taken || c.bytes.isEmpty, "a declined line wrote something")
        return (text(a.bytes), text(b.bytes), taken)
    }

    @Test func theFiltersLinesAreTakenWithTheGeneralPathsBytes() throws {
        let lines = try FormatOnePassTests().filterLines(seed: 11, count: 120)
        #expect(lines.count > 200)
        for line in lines {
            let (general, fast, taken) = paths(line)
            #expect(taken, "declined the filter's own line \(text(line).prefix(200))")
            #expect(fast == general, "outputs differ for \(text(line).prefix(200))")
        }
    }

    @Test func anAnswerIsExactlyTheContractsBytes() {
        let line = #"{"type":"visible","client":"alice","version":12,"full":false,"day":"tomorrow","snapshot":"tomorrow-5f1c","source":"store","fetchedAt":1795000000,"ageSeconds":-0,"field":"wind","units":"metric","upsert":[{"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.9,"windDirection":270,"precipitation":0}],"remove":["GONE","ALSO"]}"#
        let (general, fast, taken) = paths(Array(line.utf8))
        #expect(taken)
        #expect(fast == general)
        #expect(fast == #"{"type":"annotations","client":"alice","version":12,"full":false,"day":"tomorrow","field":"wind","units":"metric","windUnit":"kmh","locale":"en","snapshot":"tomorrow-5f1c","source":"store","fetchedAt":1795000000,"ageSeconds":0,"upsert":[{"id":"K1D3","coordinate":{"latitude":43.40332,"longitude":-98.82952},"title":"11 km/h W →","subtitle":"PLATTE","wind":{"speed":11.1,"unit":"km/h","calm":false,"from":"W","fromDegrees":270,"to":"E","arrow":"→","rotation":90}}],"remove":["GONE","ALSO"]}"# + "\n")
    }

    /// Heads and tails around every rule of the layout reader: whichever path answers, the bytes
    /// are the general path's.
    @Test(arguments: [
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, true),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":null,"source":null,"fetchedAt":null,"ageSeconds":null"#, #"[]}"#, true),
        (#""client":"a","version":0,"full":false,"day":"today","snapshot":"","source":"feed","fetchedAt":1795000000.5,"ageSeconds":1e3"#, #"["",""]}"#, true),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2,"field":"conditions","units":"imperial","windUnit":"knots","locale":"sk""#, #"["X"]}"#, true),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2,"locale":"sk""#, #"["X"]}"#, true),
        (#""client":"Brünn","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["Zürich"]}"#, true),
        // declined: escapes and DEL, other numbers, null flags, unknown words and keys, other orders, whitespace
        (#""client":"a\u0062","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        ("\"client\":\"a\u{7F}\",\"version\":2,\"full\":true,\"day\":\"today\",\"snapshot\":\"s\",\"source\":\"feed\",\"fetchedAt\":1,\"ageSeconds\":2", #"["X"]}"#, false),
        (#""client":"","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2.0,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":02,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":-2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":null,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"someday","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":7,"source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":"1","ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1e400,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2,"field":"snow""#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2,"locale":"sk","field":"wind""#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2,"limit":5"#, #"["X"]}"#, false),
        (#""client":"a","version": 2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X\"Y"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X", "Y"]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X",7]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]} "#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"],"remove":[]}"#, false),
        (#""client":"a","version":2,"full":true,"day":"today","snapshot":"s","source":"feed","fetchedAt":1,"ageSeconds":2"#, #"["X"]"#, false),
    ])
    func oneHead(_ head: String, remove: String, taken expected: Bool) {
        let item = #"{"id":"K1","name":"A","latitude":1.5,"longitude":2,"temperature":50,"windSpeed":3,"windDirection":90,"precipitation":10}"#
        let line = #"{"type":"visible","# + head + #","upsert":["# + item + #"],"remove":"# + remove
        let (general, fast, taken) = paths(Array(line.utf8))
        #expect(taken == expected, "\(line)")
        #expect(fast == general, "\(line)")
    }

    /// An engine's answer to `line` (its cache carries over between calls).
    func answer(_ engine: FormatEngine, _ line: String) -> String {
        var out = JSONWriter()
        Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, into: &out) }
        return text(out.bytes)
    }

    /// The general path's answer, without a cache.
    func general(_ line: String) -> String {
        var engine = FormatEngine()
        engine.onePass = false
        engine.cache = nil
        return answer(engine, line)
    }

    func line(fetchedAt: String, ageSeconds: String, items: [String]) -> String {
        #"{"type":"visible","client":"a","version":3,"full":false,"day":"today","snapshot":"s","source":"feed","fetchedAt":"#
            + fetchedAt + #","ageSeconds":"# + ageSeconds + #","upsert":["# + items.joined(separator: ",") + #"],"remove":["X"]}"#
    }

    static let item = #"{"id":"K1","name":"A","latitude":1.5,"longitude":2,"temperature":50,"windSpeed":3,"windDirection":90,"precipitation":10}"#

    /// `fetchedAt` and `ageSeconds` that are not copied as they are (ten digits, fractions, `-0`)
    /// are printed once and then taken from the engine's last printed ones while their text is the
    /// same; a new text (another snapshot) is printed again, never answered with the old bytes.
    @Test func provenanceNumbersArePrintedOnceAndFollowTheirText() {
        let engine = FormatEngine()
        let lines = [
            line(fetchedAt: "1795000000", ageSeconds: "0", items: [Self.item]),
            line(fetchedAt: "1795000000", ageSeconds: "0", items: [Self.item]),
            line(fetchedAt: "1795000000.25", ageSeconds: "12.000001", items: [Self.item]),
            line(fetchedAt: "1795000000.25", ageSeconds: "12.000001", items: [Self.item]),
            line(fetchedAt: "1795000000.5", ageSeconds: "12.000002", items: [Self.item]),  // same length, other digits
            line(fetchedAt: "1795000001", ageSeconds: "-0", items: [Self.item]),
            line(fetchedAt: "17950000001", ageSeconds: "-0.0", items: [Self.item]),
            line(fetchedAt: "1795000000", ageSeconds: "0", items: [Self.item]),
        ]
        for line in lines {
            #expect(answer(engine, line) == general(line), "\(line)")
        }
        #expect(answer(engine, lines[4]).contains(#""fetchedAt":1795000000.5,"ageSeconds":12.000002,"upsert""#))
        #expect(answer(engine, lines[6]).contains(#""fetchedAt":17950000001,"ageSeconds":0,"upsert""#))
        let last = engine.cache?.state.withLock { $0.headNumbers }
        #expect(last.map { text($0.fetchedAt.text) + " " + text($0.fetchedAt.printed) } == "17950000001 17950000001")
        #expect(last.map { text($0.ageSeconds.text) + " " + text($0.ageSeconds.printed) } == "-0.0 0")
        // A long text is printed right but not kept (it is held between lines, outside the
        // cache's bound): the short one before it stays.
        let long = "1795000000." + String(repeating: "0", count: 60) + "1"
        let longLine = line(fetchedAt: long, ageSeconds: "-0.0", items: [Self.item])
        for _ in 0..<2 { #expect(answer(engine, longLine) == general(longLine)) }
        let kept = engine.cache?.state.withLock { $0.headNumbers }
        #expect(kept.map { text($0.fetchedAt.text) } == "17950000001")
    }

    /// A line the layout reader starts on and declines at a later item (an unknown key) or at its
    /// end, after items it already wrote (some copied from the cache): the answer is the general
    /// path's alone, nothing of the abandoned one before it; and the items stored on the way serve
    /// the next lines with the right bytes.
    @Test func aLineDeclinedAfterItsFirstItemsIsAnsweredOnce() {
        let engine = FormatEngine()
        let other = #"{"id":"K2","name":"B","latitude":-1.25,"longitude":3.5,"temperature":-4.5,"windSpeed":0,"precipitation":null}"#
        let odd = #"{"id":"K3","name":"C","latitude":1,"longitude":1,"temperature":1,"note":"unknown key"}"#
        let first = line(fetchedAt: "1795000000.25", ageSeconds: "3", items: [Self.item])
        let declined = line(fetchedAt: "1795000000.25", ageSeconds: "3", items: [Self.item, other, odd])
        let badEnd = line(fetchedAt: "1795000000.25", ageSeconds: "3", items: [Self.item, other]) + " "
        let after = line(fetchedAt: "1795000000.25", ageSeconds: "3", items: [other, Self.item])
        for line in [first, declined, badEnd, after, declined] {
            let got = answer(engine, line)
            #expect(got == general(line), "\(line)")
            #expect(got.components(separatedBy: #"{"type":"annotations""#).count == 2, "\(got)")
        }
        var unused = JSONWriter()
        let taken = Array(declined.utf8).withUnsafeBytes { engine.annotationsFromFilterLine($0, cache: nil, limits: nil, into: &unused) }
        #expect(!taken)
        #expect(unused.bytes.isEmpty)
    }
}
