import Testing
@testable import IsobarCore

/// The one-pass item reader's parts that keep text in the line (`ScannedItem`), compare keys as
/// words (`AnnotationItemScan.Key.spelled`) and upsert by the id's bytes (`AnnotationTable.upsert(id:update:make:)`),
/// against the general reader: exact spellings, and the same outcome, error, set and order of
/// items on thousands of generated lines whose items are reordered, padded, escaped, repeated,
/// nulled, lengthened and retyped.
@Suite struct ClientItemScanTests {
    /// Each key's words spell exactly `"name":`; the word comparison takes each spelled key (and
    /// leaves the scanner at its value) and declines a key with any one byte changed.
    @Test func keysAreSpelledAsTheirNames() {
        var spellings: [(String, (UInt64, UInt64, Int))] = AnnotationItemScan.Key.allCases.map { ("\($0)", $0.spelling) }
        spellings += [("latitude", AnnotationItemScan.latitudeSpelling), ("longitude", AnnotationItemScan.longitudeSpelling)]
        for (name, (low, high, length)) in spellings {
            let spelled = Array("\"\(name)\":".utf8)
            #expect(length == spelled.count, "\(name)")
            var words = spelled + Array(repeating: 0, count: 16 - spelled.count)
            let (first, second) = words.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            #expect(first == low && second == high, "\(name)")
            guard let key = AnnotationItemScan.Key.allCases.first(where: { "\($0)" == name }) else { continue }
            words = spelled + Array(" 7,\"padding-padding\"".utf8)
            words.withUnsafeBytes { line in
                var scanner = JSONScanner(line)
                #expect(AnnotationItemScan.Key.spelled(&scanner) == key, "\(name)")
                #expect(scanner.index == spelled.count + 1, "\(name)")
            }
            for position in spelled.indices {
                var changed = words
                changed[position] ^= 0x20
                changed.withUnsafeBytes { line in
                    var scanner = JSONScanner(line)
                    #expect(AnnotationItemScan.Key.spelled(&scanner) == nil, "\(name), byte \(position) changed")
                    #expect(scanner.index == 0)
                }
            }
        }
    }

    /// Generated `upsert` items around every rule of the item reader (and ids repeated within a
    /// line and across lines, so items held are updated in place), applied in sequence to sets of
    /// both kinds (with and without detail) through `apply(storage:)` and through the general
    /// reader: the same outcome or error after each line, the same items in the same order, and
    /// most lines taken by the one-pass reader.
    @Test(arguments: [false, true])
    func generatedItemsGiveTheGeneralReadersOutcomeAndSet(keepsDetail: Bool) {
        let ids = [#""K1""#, #""K2""#, #""c:12:34""#, #""K\u0031""#, #""\u004b2""#, #""Žilina""#, #""Z\u030Cilina""#,
                   #""""#, "7", "null", "\"" + String(repeating: "x", count: 256) + "\"", "\"" + String(repeating: "y", count: 257) + "\"",
                   "\"" + String(repeating: "z", count: 255) + #"\u00e9""#, #""a\"b""#, #""\ud800""#]
        let members: [(String, [String])] = [
            ("coordinate", [#"{"latitude":1.5,"longitude":-2.25}"#, #"{"longitude":2,"latitude":1}"#, #"{ "latitude" : 3 , "longitude" : 4 }"#,
                            #"{"latitude":91,"longitude":2}"#, #"{"latitude":1}"#, #"{"latitude":1,"longitude":2,"x":3}"#, "null", #"{"latitude":"1","longitude":2}"#]),
            ("title", [#""50°""#, #""7 mph W →""#, #""a \"b\" \u00e9""#, "null", #""""#, "5", "[]"]),
            ("subtitle", [#""PLATTE""#, #""Ž\u0069lina""#, "null", "3", #"{"a":1}"#]),
            ("cluster", ["true", "false", "null", #""yes""#]),
            ("count", ["12", "1", "null", "1.5", "1e16", #""3""#, "-4", "2.0"]),
            ("value", ["50", "null", #""x""#, "[1,{}]"]),
            ("wind", [#"{"speed":3,"rotation":90}"#, #"{"speed":3,"rotation":null}"#, #"{"rotation":"w"}"#, #"{"a":1,"a":2}"#, "null", "4"]),
            ("stale", ["true", "false", "null", "1"]),
            ("icon", [#""rain""#, "null"]),
        ]
        var random = TestSupport.Random(seed: keepsDetail ? 33 : 32)
        func pick<T>(_ array: [T]) -> T { array[Int(random.next() % UInt64(array.count))] }
        func item() -> String {
            var fields: [(String, String)] = [("id", random.next() % 3 == 0 ? pick(ids) : pick(Array(ids.prefix(3))))]
            for (key, values) in members where random.next() % (key == "coordinate" ? 20 : 3) != 0 {
                fields.append((key, random.next() % 8 == 0 ? pick(values) : values[0]))
            }
            if random.next() % 4 == 0 { fields.shuffle(using: &random) }  // the formatter's order, mostly
            if random.next() % 30 == 0, let field = fields.randomElement(using: &random) { fields.append(field) }  // repeated
            if random.next() % 30 == 0 { fields.append(("extra", "1")) }
            var keys = fields.map { "\"\($0.0)\"" }
            if random.next() % 30 == 0, !keys.isEmpty {  // an escaped key
                let index = Int(random.next() % UInt64(keys.count))
                keys[index] = "\"\\u00" + String(Array(keys[index].utf8)[1], radix: 16) + keys[index].dropFirst(2)
            }
            let space = random.next() % 10 == 0 ? " " : ""
            return "{" + zip(keys, fields).map { space + $0 + space + ":" + space + $1.1 }.joined(separator: ",") + space + "}"
        }
        var oneSet = AnnotationSet(keepsDetail: keepsDetail), generalSet = AnnotationSet(keepsDetail: keepsDetail)
        var taken = 0, failed = 0
        let count = 3_000
        for n in 0..<count {
            let items = (0..<Int(random.next() % 6)).map { _ in item() }
            let full = n % 50 == 0 || random.next() % 20 == 0
            let remove = random.next() % 3 == 0 ? #"[\#(pick(ids)),"K2"]"# : "[]"
            // Short lines (an item near the end takes the general key path) and padded ones.
            let tail = random.next() % 2 == 0 ? "" : #","source":"feed","fetchedAt":1795316701.07"#
            let line = Array(#"{"type":"annotations","client":"c","version":\#(n + 1),"full":\#(full),"upsert":[\#(items.joined(separator: ","))],"remove":\#(remove)\#(tail)}"#.utf8)
            var scanned: [ScannedItem] = [], removes: [ScannedItem.Text] = []
            if line.withUnsafeBytes({ AnnotationMessageScan.read($0, keepsDetail: keepsDetail, upserts: &scanned, removes: &removes) }) != nil { taken += 1 }
            var copy = generalSet
            if (try? copy.apply(JSONObject(storage: line))) == nil { failed += 1 }
            TestSupport.applyBoth(line, &oneSet, &generalSet)
            #expect(oneSet.values == generalSet.values, "items or their order differ after \(String(decoding: line, as: UTF8.self).prefix(300))")
        }
        // Both kinds of line are common: taken in one pass, and refused with an error.
        #expect(taken > count / 5 && taken < count * 4 / 5, "taken \(taken) of \(count)")
        #expect(failed > count / 10 && failed < count * 4 / 5, "failed \(failed) of \(count)")
        #expect(oneSet.count > 0)
    }
}
