import Testing
import Foundation
@testable import IsobarCore

/// The client's one-pass reader of a whole `annotations` line (`AnnotationMessageScan`, the first
/// reader `AnnotationSet.apply(storage:)` tries): exact results on the formatter's form, and the
/// same outcome, error and set as the general reader (`apply(_:)` on a `JSONObject`) on thousands
/// of generated lines whose top-level members are dropped, repeated, retyped, escaped or padded.
@Suite struct ClientMessageScanTests {
    /// The message, its items and its `remove` ids (unescaped) as the scan reads `line`.
    func read(_ line: String, keepsDetail: Bool = false) -> (AnnotationMessageScan.Message, [AnnotationSet.Item], [String])? {
        var items: [ScannedItem] = [], removes: [ScannedItem.Text] = []
        let bytes = Array(line.utf8)
        guard let message = bytes.withUnsafeBytes({ AnnotationMessageScan.read($0, keepsDetail: keepsDetail, upserts: &items, removes: &removes) })
        else { return nil }
        return bytes.withUnsafeBytes { line in (message, items.map { $0.item(in: line) }, removes.map { $0.string(in: line) }) }
    }

    @Test func readsTheFormattersFormExactly() throws {
        let line = #"{"type":"annotations","client":"alice","version":7,"full":false,"day":"tomorrow","field":"wind","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-c9","source":"feed","fetchedAt":1795316701.07,"ageSeconds":0,"upsert":[{"id":"K1D3","coordinate":{"latitude":43.5,"longitude":-98.25},"title":"7 mph W →","subtitle":"PLATTE","wind":{"speed":6.9,"rotation":90}}],"remove":["A","B"]}"#
        let (message, items, removes) = try #require(read(line))
        let bytes = Array(line.utf8)
        let source = try #require(message.source)
        #expect(String(decoding: bytes[source], as: UTF8.self) == "feed")
        #expect(removes == ["A", "B"])
        #expect(message == AnnotationMessageScan.Message(version: 7, full: false, day: .tomorrow, field: .wind, source: source,
                                                         fetchedAt: 1795316701.07))
        #expect(items == [AnnotationSet.Item(id: "K1D3", coordinate: Coordinate(latitude: 43.5, longitude: -98.25), title: "7 mph W →", count: 1)])
        // With detail, as IsobarClient keeps it.
        let detailed = try #require(read(line, keepsDetail: true)).1
        #expect(detailed.map(\.subtitle) == ["PLATTE"] && detailed.map(\.rotation) == [90])
        // Nulls, whitespace, and members in any order.
        let spaced = #"  { "remove" : [ ] , "source":null,"day":null, "field" : null ,"fetchedAt":null,"full":null,"version":-0 }  "#
        let (other, none, noRemoves) = try #require(read(spaced))
        #expect(other == AnnotationMessageScan.Message(version: 0, full: false, day: nil, field: nil, source: nil, fetchedAt: nil))
        #expect(none.isEmpty && noRemoves.isEmpty)
    }

    /// Lines the reader leaves to the general reader (which then accepts or rejects them).
    @Test(arguments: [
        #"{"version":1,"version":2}"#,
        #"{"version":1,"upsert":[],"upsert":[]}"#,
        #"{"vers\u0069on":1}"#,
        #"{"version":1,"extra":1}"#,
        #"{"full":true}"#,
        #"{"version":1.5}"#,
        #"{"version":"1"}"#,
        #"{"version":null}"#,
        #"{"version":1,"full":1}"#,
        #"{"version":1,"day":"someday"}"#,
        #"{"version":1,"day":"tod\u0061y"}"#,
        #"{"version":1,"source":5}"#,
        #"{"version":1,"fetchedAt":"5"}"#,
        #"{"version":1,"remove":null}"#,
        #"{"version":1,"upsert":null}"#,
        #"{"version":1,"upsert":[1]}"#,
        #"{"version":1,"client":{"a":1,"a":2}}"#,
        #"{"version":1} x"#,
        #"{"version":1,}"#,
        #"{}"#,
        "[1]",
        "",
    ])
    func declines(_ line: String) {
        #expect(read(line) == nil, "\(line)")
        #expect(!AnnotationSet.readsInOnePass(Array(line.utf8)) && !AnnotationSet.readsInOnePass(Array(line.utf8), keepsDetail: true), "\(line)")
    }

    /// `readsInOnePass` (what `isobar-bench counted` checks every message with) says whether the
    /// one-pass reader takes a line: the formatter's form, with and without detail.
    @Test func readsInOnePassTakesTheFormattersForm() {
        let line = #"{"type":"annotations","client":"alice","version":7,"full":false,"day":"tomorrow","field":"wind","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-c9","source":"feed","fetchedAt":1795316701.07,"ageSeconds":0,"upsert":[{"id":"K1D3","coordinate":{"latitude":43.5,"longitude":-98.25},"title":"7 mph W →","subtitle":"PLATTE","wind":{"speed":6.9,"rotation":90}}],"remove":["A","B"]}"#
        #expect(AnnotationSet.readsInOnePass(Array(line.utf8)))
        #expect(AnnotationSet.readsInOnePass(Array(line.utf8), keepsDetail: true))
    }

    /// Generated lines around every member's rule, applied in sequence to two sets (one through
    /// `apply(storage:)`, one through the general reader): the same outcome or error and the
    /// same set after each, and a good share of them taken by the one-pass reader.
    @Test func generatedLinesGiveTheGeneralReadersOutcomeAndSet() {
        let values: [(String, [String])] = [
            ("type", [#""annotations""#, #"{"a":[1,{"b":2}]}"#, #"{"a":1,"a":2}"#, "[1,2]", "tru"]),
            ("client", [#""c1""#, #""c\u0031""#, "null"]),
            ("version", ["1", "2", "3", "4", "0", "-1", "2.0", "1.5", "1e0", "2E0", #""2""#, "null", "true", "9e15", "01"]),
            ("full", ["true", "false", "null", "1", #""true""#, "fals"]),
            ("day", [#""today""#, #""tomorrow""#, #""someday""#, "null", #""tod\u0061y""#, "5", #""""#]),
            ("field", [#""temperature""#, #""wind""#, #""precipitation""#, #""conditions""#, #""Wind""#, "null", "[]"]),
            ("units", [#""metric""#, "{}"]),
            ("snapshot", [#""today-1""#, #""\ud800""#]),
            ("source", [#""feed""#, #""metar""#, #""fe\u0065d""#, "null", "7", #""""#, #""é""#]),
            ("fetchedAt", ["1795316701.07", "-0", "0", "null", #""5""#, "1e400", "2.5e3"]),
            ("ageSeconds", ["0", "12", "-"]),
            ("remove", ["[]", #"["K1"]"#, #"["K1",5,null,"K\u0032"]"#, "null", "{}", #""K1""#, #"["K1",]"#]),
            ("upsert", ["[]",
                        #"[{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"a"}]"#,
                        #"[{"id":"K2","coordinate":{"latitude":3,"longitude":4},"count":3},{"id":"K3","coordinate":{"latitude":5,"longitude":6},"stale":true}]"#,
                        #"[{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"b"},7]"#,
                        #"[{"id":"K4","coordinate":{"latitude":95,"longitude":2}}]"#,
                        "null", "{}"]),
        ]
        var random = TestSupport.Random(seed: 2026)
        func pick<T>(_ array: [T]) -> T { array[Int(random.next() % UInt64(array.count))] }
        var oneSet = AnnotationSet(), generalSet = AnnotationSet()
        var taken = 0
        let count = 4_000
        for n in 0..<count {
            // Mostly well-formed members (the first value of each), some changed.
            var members: [(String, String)] = values.compactMap { key, candidates in
                if random.next() % 10 == 0 { return nil }  // dropped
                let value = random.next() % 4 == 0 ? pick(candidates) : candidates[0]
                return (key, value)
            }
            if let index = members.firstIndex(where: { $0.0 == "version" }), random.next() % 4 != 0 {
                members[index].1 = "\(1 + n / 3 + Int(random.next() % 3))"
            }
            if random.next() % 3 == 0, let index = members.firstIndex(where: { $0.0 == "upsert" }) {
                members[index].1 = pick(values[12].1)
            }
            if random.next() % 12 == 0, let member = members.randomElement(using: &random) { members.append(member) }  // repeated
            if random.next() % 20 == 0 { members.append(("extra", "1")) }  // unknown
            members.shuffle(using: &random)
            var keys = members.map { "\"\($0.0)\"" }
            if random.next() % 20 == 0, !keys.isEmpty {  // an escaped key
                let index = Int(random.next() % UInt64(keys.count))
                keys[index] = "\"\\u00" + String(Array(keys[index].utf8)[1], radix: 16) + keys[index].dropFirst(2)
            }
            let space = random.next() % 8 == 0 ? " " : ""
            var line = space + "{" + zip(keys, members).map { space + $0 + space + ":" + space + $1.1 + space }.joined(separator: ",") + "}" + space
            if random.next() % 40 == 0 { line += " x" }
            let bytes = Array(line.utf8)
            var items: [ScannedItem] = [], removes: [ScannedItem.Text] = []
            if bytes.withUnsafeBytes({ AnnotationMessageScan.read($0, keepsDetail: false, upserts: &items, removes: &removes) }) != nil { taken += 1 }
            TestSupport.applyBoth(bytes, &oneSet, &generalSet)
        }
        #expect(taken > count / 5 && taken < count * 4 / 5, "taken \(taken) of \(count)")
    }
    /// The one-pass number reader (`AnnotationItemScan.number`) against the scanner's check and
    /// `JSONDecoding.parseNumber` on generated numbers, valid and not, at the end of the bytes and
    /// followed by more (as a coordinate's latitude is): the same verdict, the same bits, and the
    /// scanner left at the same place.
    @Test func numbersReadAsTheScannerAndParseNumberReadThem() {
        var random = TestSupport.Random(seed: 77)
        let pieces = ["-", "0", "00", "1", "9", "12345678", "123456789", "1234567890123456", "00000000", ".", ".5", ".0000001",
                      ".12345678", ".000000000000000000001", "e", "E+2", "e-400", "e400", "x", ":", "/", "", ",", "}"]
        var valid = 0
        for n in 0..<20_000 {
            var text = ""
            for _ in 0..<(1 + Int(random.next() % 4)) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            if n % 3 == 0 { text = String(format: "%.*f", Int(random.next() % 12), random.uniform(-180...180)) }
            let bytes = Array((text + (n % 2 == 0 ? #","longitude":-96.11408}"# : "}")).utf8)
            bytes.withUnsafeBytes { raw in
                var fast = JSONScanner(raw)
                let read = AnnotationItemScan.number(&fast)
                var general = JSONScanner(raw)
                var expected: Double?
                if let first = general.peek(), first == UInt8(ascii: "-") || JSONScanner.isDigit(first),
                   (try? general.scanValue(depth: 1)) == .number {
                    let value = JSONDecoding.parseNumber(raw, 0..<general.index) + 0.0
                    expected = value.isFinite ? value : nil
                }
                #expect(read?.bitPattern == expected?.bitPattern, "\(text)")
                if read != nil {
                    valid += 1
                    #expect(fast.index == general.index, "\(text)")
                }
            }
        }
        #expect(valid > 7_000)
    }
}
