import Testing
@testable import IsobarCore

/// Issue 29 item 1: every `error` carries a machine-readable `code` beside the human `message`
/// (PROTOCOL.md, "Errors"), last in the line.
@Suite struct ErrorCodeTests {
    static func filterErrors(_ lines: [String]) -> [String] {
        let filter = FilterEngine(wallClock: { 1_795_430_000 })
        var out = JSONWriter()
        for line in lines { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &out) } }
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.hasPrefix(#"{"type":"error""#) }
    }

    @Test(arguments: [
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":"#, "not-json"),
        (#"{"type":"viewport","client":"a","client":"b"}"#, "not-json"),
        (#"{"type":"viewport","client":"a","span":{"latitudeDelta":1,"longitudeDelta":1}}"#, "field-missing"),
        (#"{"type":"viewport","client":"a","center":{"latitude":"0","longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#, "field-type"),
        (#"{"type":"viewport","client":"a","center":{"latitude":91,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"units":"kelvin"}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":1.5}"#, "field-type"),
        (#"{"type":"viewport","client":"","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#, "out-of-range"),
        (#"{"type":"select","client":"nobody","id":null}"#, "invalid"),
        // Once `invalid`, now the specific code (PROTOCOL.md, "Errors": an empty or over-long value is out of range).
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":0,"longitudeDelta":1}}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":181,"longitudeDelta":1}}"#, "out-of-range"),
        (#"{"type":"search","client":"a","query":"\u2003\u00a0"}"#, "out-of-range"),
        (#"{"type":"search","client":"a","query":"\#(String(repeating: "é", count: 101))"}"#, "out-of-range"),
        (#"{"type":"select","client":"a","id":""}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"limit":0}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":-1}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":1000000000000001}"#, "out-of-range"),
        (#"{"type":"viewport","client":"a","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"version":9000000000000000}"#, "field-type"),
        (#"{"type":"search","client":"a","query":"x","limit":101}"#, "out-of-range"),
    ])
    func eachBadLineHasItsCode(line: String, code: String) throws {
        let errors = Self.filterErrors([line])
        try #require(errors.count == 1)
        #expect(errors[0].hasSuffix(#","code":"\#(code)"}"#), "\(errors[0])")
    }

    @Test func theCodeComesLastAndTheFormatterAndAFeedKeepIt() throws {
        #expect(ErrorMessage(stage: "filter", message: "m", excerpt: "e", client: "a", code: .outOfRange).jsonLine
            == #"{"type":"error","stage":"filter","message":"m","excerpt":"e","client":"a","code":"out-of-range"}"#)
        let format = FormatEngine()
        var out = JSONWriter()
        Array(#"{"type":"selection","client":"a","id":"X","reason":"selected","station":{"id":"X","latitude":0}}"#.utf8).withUnsafeBytes {
            format.handle(line: $0, into: &out)
        }
        #expect(String(decoding: out.bytes, as: UTF8.self).hasSuffix(#""client":"a","code":"field-missing"}"# + "\n"))
        // A record a feed parser rejects keeps the reason's code: a latitude out of range.
        let feed = try FeedFormat.openweather.parse(Array(#"{"list":[{"id":1,"coord":{"lat":95,"lon":0}},{"id":2,"coord":{"lat":1,"lon":0}}]}"#.utf8), day: .today).feed
        #expect(feed.errors.map(\.code) == [.outOfRange])
    }
}
