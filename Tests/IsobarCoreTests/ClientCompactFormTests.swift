import Testing
import Foundation
@testable import IsobarCore

/// The one-pass client reader's shortcuts for the formatter's own spelling, against the general
/// reader: a coordinate read as `{"latitude":…,"longitude":…}` in one go, numbers read with their
/// digits counted per run, `subtitle` and `value` skipped without `scanValue`'s dispatch, the
/// `remove` ids kept where the scan found them, and short titles taken from the set's
/// `TitleCache`. Each must give exactly what the member-by-member route gives, on good and
/// broken input.
@Suite struct ClientCompactFormTests {
    /// Items in the formatter's spelling with coordinates, values and counts of every form (in
    /// range, just out of it, malformed, other kinds), some members reordered, spaced or repeated,
    /// and `remove` arrays of every kind, applied after a full set to sets of both kinds: the
    /// general reader's outcome or error and set, every time.
    @Test(arguments: [false, true])
    func compactItemsAndRemovesGiveTheGeneralReadersOutcomeAndSet(keepsDetail: Bool) {
        var random = TestSupport.Random(seed: keepsDetail ? 91 : 90)
        let numbers = ["0", "-0", "1", "90", "-90", "90.0000001", "-90.5", "180", "-180", "180.00001", "45.123456789012",
                       "12345678.5", "1.2345678901234567", "1e2", "-", "01", "1.", "12:34", "123456789012345678901234",
                       "-96.11408", "30.5571", "99999999", "100000000", "1e400", #""5""#, "null", "[1]"]
        // Mostly the formatter's numbers (up to 8 decimals, a little beyond the range at times).
        func number(_ range: ClosedRange<Double> = -185...185) -> String {
            random.next() % 4 == 0 ? numbers[Int(random.next() % UInt64(numbers.count))]
                : String(format: "%.*f", Int(random.next() % 9), random.uniform(range))
        }
        let removes = ["[]", #"["K1"]"#, #"["K1","K2","K3"]"#, #"[ "K1" , "K\u0032" ]"#, #"["K1",5,null,[1,["x"]],{"a":"b"},"K2"]"#,
                       #"["K1",]"#, #"["K1" "K2"]"#, "null", "{}", #"["\ud800"]"#, "[[[[]]]]"]
        let full = Array(#"{"version":1,"full":true,"upsert":[{"id":"K1","coordinate":{"latitude":1,"longitude":2}},{"id":"K2","coordinate":{"latitude":1,"longitude":2}},{"id":"K3","coordinate":{"latitude":1,"longitude":2}}],"remove":[]}"#.utf8)
        var taken = 0
        let count = 3_000
        for _ in 0..<count {
            var members: [(String, String)] = [("id", random.next() % 4 == 0 ? #""K\u0031""# : #""K\#(1 + random.next() % 4)""#)]
            let latitude = number(-92...92), longitude = number()
            switch random.next() % 5 {
            case 0: members.append(("coordinate", #"{"longitude":\#(longitude),"latitude":\#(latitude)}"#))
            case 1: members.append(("coordinate", #"{"latitude": \#(latitude),"longitude":\#(longitude) }"#))
            default: members.append(("coordinate", #"{"latitude":\#(latitude),"longitude":\#(longitude)}"#))
            }
            members.append(("title", #""65°""#))
            if random.next() % 4 != 0 { members.append(("subtitle", random.next() % 8 == 0 ? number() : #""Kaloran, Tes""#)) }
            if random.next() % 5 == 0 {
                members += [("cluster", "true"), ("count", number())]
            } else if random.next() % 4 != 0 {
                members.append(("value", number()))
            }
            if random.next() % 8 == 0 { members.shuffle(using: &random) }
            if random.next() % 20 == 0, let member = members.randomElement(using: &random) { members.append(member) }
            let space = random.next() % 12 == 0 ? " " : ""
            let item = "{" + members.map { "\"\($0.0)\"" + space + ":" + $0.1 }.joined(separator: "," + space) + "}"
            let remove = removes[Int(random.next() % UInt64(removes.count))]
            let line = Array(#"{"type":"annotations","client":"c","version":2,"full":false,"upsert":[\#(item)],"remove":\#(remove),"source":"feed"}"#.utf8)
            var items: [ScannedItem] = [], removes: [ScannedItem.Text] = []
            if line.withUnsafeBytes({ AnnotationMessageScan.read($0, keepsDetail: keepsDetail, upserts: &items, removes: &removes) }) != nil { taken += 1 }
            var one = AnnotationSet(keepsDetail: keepsDetail), general = AnnotationSet(keepsDetail: keepsDetail)
            TestSupport.applyBoth(full, &one, &general)
            TestSupport.applyBoth(line, &one, &general)
            #expect(one.values == general.values, "items or their order differ after \(String(decoding: line, as: UTF8.self))")
        }
        #expect(taken > count / 10 && taken < count * 9 / 10, "taken \(taken) of \(count)")
    }

    /// The `remove` elements the scan keeps: every string where it lies, in order, with its
    /// escape mark; nothing for an element of another kind.
    @Test func removeIdsAreKeptWhereTheScanFoundThem() {
        let line = #"{"version":3,"remove":[ "K1" ,5,"K\u0032",null,[1,["x"]],{"a":"b"},""]}"#
        let bytes = Array(line.utf8)
        var items: [ScannedItem] = [], removes: [ScannedItem.Text] = []
        let message = bytes.withUnsafeBytes { AnnotationMessageScan.read($0, keepsDetail: false, upserts: &items, removes: &removes) }
        #expect(message != nil)
        // Only the strings are kept: the set ignores the other elements.
        #expect(removes.map { String(decoding: bytes[$0.range], as: UTF8.self) } == ["K1", #"K\u0032"#, ""])
        #expect(removes.map(\.escaped) == [false, true, false])
    }

    /// Titles of every short length (ASCII and not, escaped and not, in the table's slots over and
    /// over): the cache gives exactly the title the bytes spell, and sets that take their titles
    /// from it hold what the general reader holds.
    @Test func cachedTitlesAreTheTitlesOfTheLine() {
        var random = TestSupport.Random(seed: 64)
        let pieces = ["6", "5", "°", "a", "é", " ", "-", "\\u00e9", "\\\"", "mph"]
        func title() -> String { (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined() }
        var cache = TitleCache()
        for _ in 0..<20_000 {
            let line = Array(#"{"title":"\#(title())","subtitle":"padding"}"#.utf8)
            line.withUnsafeBytes { raw in
                var scanner = JSONScanner(raw, start: 9)
                guard let escaped = try? scanner.scanString() else { return }
                let text = ScannedItem.Text(range: 10..<(scanner.index - 1), escaped: escaped)
                #expect(cache.title(text, in: raw) == text.string(in: raw), "\(String(decoding: line, as: UTF8.self))")
            }
        }
        var one = AnnotationSet(), general = AnnotationSet()
        var largest = 0
        for n in 0..<1_000 {
            let items = (0..<(1 + Int(random.next() % 5))).map { k in
                #"{"id":"K\#(n % 7)-\#(k)","coordinate":{"latitude":1,"longitude":2},"title":"\#(title())","subtitle":"x","value":1}"#
            }
            let line = Array(#"{"type":"annotations","version":\#(n + 1),"full":\#(n % 9 == 0),"upsert":[\#(items.joined(separator: ","))],"remove":["K\#(n % 5)-0"]}"#.utf8)
            TestSupport.applyBoth(line, &one, &general)
            #expect(one.values == general.values)
            largest = max(largest, one.count)
        }
        // Sets of some size were compared (every ninth message is full, so the last one is small).
        #expect(largest > 10)
    }
}
