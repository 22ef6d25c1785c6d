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
