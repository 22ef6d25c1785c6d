import Foundation
import Testing
@testable import IsobarCore

/// `TopicDeriver` (the plug's and `Topic.derive(fromLine:)`'s allocation-free path) must agree
/// exactly with parsing a full `JSONObject` and `Topic.derive(from:)`, on good lines, odd-but-valid
/// lines and every kind of bad line.
@Suite struct TopicDeriverTests {
    static let lines: [String] = [
        #"{"type":"station","day":"today"}"#,
        #"{"type":"annotations","client":"alice","version":1}"#,
        #"  {"client":"bob","type":"visible"}  "#,
        #"{"type":"a\/b","client":"c\u0064"}"#,
        #"{"\u0074ype":"escaped-key","\u0063lient":"x"}"#,
        #"{"type":"viewport","client":""}"#,
        #"{"type":"viewport","client":7}"#,
        #"{"type":"viewport","client":null,"nested":{"type":"inner","client":"no"}}"#,
        #"{"type":""}"#,
        #"{"type":7}"#,
        #"{"client":"alice"}"#,
        #"{}"#,
        #"{"type":"x","type":"y"}"#,
        #"{"type":"x","\u0074ype":"y"}"#,
        #"{"type":"x","a":{"b":1,"b":2}}"#,
        #"{"type":"x"} trailing"#,
        #"{"type":"x",}"#,
        #"{"type":"x","v":NaN}"#,
        #"{"type":"x","v":01}"#,
        #"["type"]"#,
        "not json",
        "",
        #"{"type":"ünïcödé","client":"😀"}"#,
        #"{"type":"x","deep":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
        #"{"type":"x","deep":"# + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}",
    ]

    static var corpus: [[UInt8]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../IsobarProcessTests/Fixtures/bad-lines/corpus.ndjson")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return [UInt8](data).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    }

    @Test func agreesWithTheFullParseOnEveryLine() throws {
        var deriver = TopicDeriver()
        let all = Self.lines.map { Array($0.utf8) } + Self.corpus
        try #require(Self.corpus.count > 70, "corpus not found")
        var accepted = 0
        for line in all {
            let expected = line.withUnsafeBytes { raw in (try? JSONObject(parsing: raw)).flatMap(Topic.derive(from:)) }
            let ok = line.withUnsafeBytes { deriver.derive($0) }
            let got = ok ? String(decoding: deriver.topic, as: UTF8.self) : nil
            #expect(got == expected, "\(String(decoding: line.prefix(120), as: UTF8.self))")
            if ok { accepted += 1 }
        }
        #expect(accepted > 20 && accepted < all.count - 40)
    }

    /// `deriveTrusted` (the in-process stages' path) gives `derive`'s topic for every valid line:
    /// the list and corpus above, lines shaped to hit each of its branches, and real engine output.
    @Test func trustedAgreesOnEveryValidLine() throws {
        var full = TopicDeriver(), trusted = TopicDeriver()
        let shaped = [
            #"{"type":"visible","client":"alice","version":1}"#,
            #"{"type":"viewport","client":"alice","center":{}}"#,
            #"{"type":"select","client":"bob"}"#,
            #"{"type":"status","day":"today","client":"late"}"#,
            #"{"type":"visible","client":"cd","version":1}"#,
            #"{"type":"visible","client":"c","version":1}"#,
            #"{"type":"annotations","client":7,"version":1}"#,
            #"{"type":"annotations","client":"","version":1}"#,
            #"{"type":"annotations","client":"a","client2":"b"}"#,
            #"{"type":"snapshot","day":"today"}"#,
            #"{"type":"x"}"#,
        ]
        var engine = try FormatOnePassTests().filterLines(seed: 5, count: 80)
        var written = JSONWriter()
        for line in engine { line.withUnsafeBytes { FormatEngine().handle(line: $0, into: &written) } }
        engine += written.bytes.split(separator: 0x0A).map(Array.init)
        var compared = 0
        for line in Self.lines.map({ Array($0.utf8) }) + Self.corpus + shaped.map({ Array($0.utf8) }) + engine {
            guard line.withUnsafeBytes({ full.derive($0) }) else { continue }
            #expect(line.withUnsafeBytes { trusted.deriveTrusted($0) })
            #expect(trusted.topic == full.topic, "\(String(decoding: line.prefix(120), as: UTF8.self))")
            compared += 1
        }
        #expect(compared > 300)
        let routed = Array(#"{"type":"viewport","client":"alice","center":{}}"#.utf8)
        #expect(routed.withUnsafeBytes { trusted.deriveTrusted($0) })
        #expect(String(decoding: trusted.topic, as: UTF8.self) == "viewport/\(ClientPartition.label(ClientPartition.of("alice")))/alice")
    }

    @Test func exactTopics() {
        var deriver = TopicDeriver()
        func topic(_ text: String) -> String? {
            let ok = Array(text.utf8).withUnsafeBytes { deriver.derive($0) }
            return ok ? String(decoding: deriver.topic, as: UTF8.self) : nil
        }
        #expect(topic(#"{"type":"annotations","client":"alice"}"#) == "annotations/alice")
        #expect(topic(#"{"client":"bob","type":"visible","x":[1,{"client":"no"}]}"#) == "visible/bob")
        #expect(topic(#"{"\u0074ype":"a\/b"}"#) == "a/b")
        #expect(topic(#"{"type":"station"}"#) == "station")
        #expect(topic(#"{"type":""}"#) == nil)
        #expect(topic(#"{"type":"x","type":"x"}"#) == nil)
        // A key set reused across lines: a rejected line leaves nothing behind for the next one.
        #expect(topic(#"{"type":"x","a":{"k":1,"k":2}}"#) == nil)
        #expect(topic(#"{"k":1,"type":"after"}"#) == "after")
    }
}
