import Testing
@testable import IsobarCore

/// Issue 29 items 1 and 12: an `error`'s `excerpt`, exactly (PROTOCOL.md, "Errors"): the first 80
/// bytes of the line, a character cut at byte 80 and control characters replaced by U+FFFD, `…`
/// after a longer line; an over-long line's excerpt has no `…` (and its error no `client`); an
/// error about no one line (a snapshot's duplicate ids) has the excerpt "".
@Suite struct ErrorExcerptTests {
    static func excerpt(_ text: String) -> String {
        Array(text.utf8).withUnsafeBytes { LineSplitter.excerpt($0) }
    }

    @Test func theFirst80BytesACutCharacterReplaced() {
        let line = "a" + String(repeating: "é", count: 50)  // 101 bytes: byte 80 is the first half of an é
        #expect(Self.excerpt(line) == "a" + String(repeating: "é", count: 39) + "\u{FFFD}…")
        let exactly80 = String(repeating: "x", count: 80)
        #expect(Self.excerpt(exactly80) == exactly80)
        #expect(Self.excerpt("a\tb\u{7F}c") == "a\u{FFFD}b\u{FFFD}c")
    }

    @Test func anOverLongLinesExcerptHasNoEllipsis() {
        var splitter = LineSplitter(maxLineLength: 100)
        var excerpts: [String] = []
        let line = Array((#"{"type":"viewport","client":"alice","pad":""# + String(repeating: "x", count: 200) + "\"}\n").utf8)
        for cut in [30, line.count] {  // whole, and split across two reads
            excerpts = []
            line[..<cut].withUnsafeBytes { splitter.append($0) { if case .tooLong(_, let e) = $0 { excerpts.append(e) } } }
            line[cut...].withUnsafeBytes { splitter.append($0) { if case .tooLong(_, let e) = $0 { excerpts.append(e) } } }
            #expect(excerpts == [String(decoding: line.prefix(80), as: UTF8.self)])
        }
    }

    @Test func aDuplicateIDErrorHasAnEmptyExcerpt() {
        let filter = FilterEngine(wallClock: { 1_795_430_000 })
        var out = JSONWriter()
        let snapshot = "today-979b6e0056f9ed51"
        let lines = [
            #"{"type":"station","day":"today","snapshot":"\#(snapshot)","seq":0,"id":"A","name":"A","latitude":0,"longitude":0,"temperature":50,"windSpeed":5,"windDirection":270,"precipitation":10}"#,
            #"{"type":"station","day":"today","snapshot":"\#(snapshot)","seq":1,"id":"A","name":"A","latitude":1,"longitude":1,"temperature":99,"windSpeed":5,"windDirection":270,"precipitation":10}"#,
            #"{"type":"snapshot","day":"today","snapshot":"\#(snapshot)","count":2,"source":"feed","fetchedAt":1795430000,"ageSeconds":0}"#,
        ]
        for line in lines { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &out) } }
        let errors = String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix(#"{"type":"error""#) }
        #expect(errors == [#"{"type":"error","stage":"filter","message":"snapshot \#(snapshot) repeats 1 station id(s) (first \"A\"); kept the first of each","excerpt":"","code":"invalid"}"#])
    }
}
