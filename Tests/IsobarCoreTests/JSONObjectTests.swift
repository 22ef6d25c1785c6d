import Foundation
import Testing
@testable import IsobarCore

@Suite struct JSONObjectTests {
    func parse(_ text: String) throws -> JSONObject { try JSONObject(parsing: text) }

    func failure(_ text: String) -> String? {
        do { _ = try JSONObject(parsing: text); return nil } catch { return error.message }
    }

    @Test func decodesFieldsLazily() throws {
        let object = try parse(#"{"type":"station","id":"K1D3","t":46.4,"n":null,"b":true,"o":{"x":-1.5e2},"a":[1,"two",{"k":3}],"e":"tab\there \u00e9 \ud83d\ude00"}"#)
        #expect(object.str("type") == "station")
        #expect(object.num("t") == 46.4)
        #expect(object.field("n")?.kind == .null)
        #expect(object.bool(object.field("b")!) == true)
        #expect(object.object(object.field("o")!)?.num("x") == -150)
        #expect(object.arrayElements(object.field("a")!).map(\.kind) == [.number, .string, .object])
        #expect(object.str("e") == "tab\there é 😀")
        #expect(object.field("missing") == nil)
    }

    @Test func numbersParseExactly() throws {
        let object = try parse(#"{"a":64.03999999999999,"b":6.90468887898,"c":-99,"d":1e-5,"e":123456789012345678901,"f":-0,"g":0.1}"#)
        #expect(object.num("a") == 64.03999999999999)
        #expect(object.num("b") == 6.90468887898)
        #expect(object.num("c") == -99)
        #expect(object.num("d") == 1e-5)
        #expect(object.num("e") == 123456789012345678901.0)
        #expect(object.num("g") == 0.1)
        #expect(try object.optionalNumber("f")?.sign == .plus)  // -0 normalised to 0
    }

    @Test(arguments: [
        ("hello", "not JSON"),
        (#"{"type":"station","id":"#, "unexpected end of input, expected a value"),
        (#"{"type":"station""#, "unexpected end of input inside object"),
        (#"{"type":"station","id":"K1"#, "unterminated string"),
        (#"{"type" "station"}"#, "expected ':'"),
        ("[1,2,3]", "expected a JSON object"),
        (#""just a string""#, "expected a JSON object"),
        (#"{"a":NaN}"#, "NaN and Infinity"),
        (#"{"a":Infinity}"#, "NaN and Infinity"),
        (#"{"a":-Infinity}"#, "NaN and Infinity"),
        (#"{"a":1,"a":2}"#, "duplicate key \"a\""),
        (#"{"a":1,"\u0061":2}"#, "duplicate key \"a\""),
        (#"{"a":01}"#, "leading zero"),
        (#"{"a":1.}"#, "digit expected"),
        (#"{"a":"x\u0001y"}"#.replacingOccurrences(of: "\\u0001", with: "\u{01}"), "control character"),
        (#"{"a":"\ud800"}"#, "surrogate"),
        (#"{"a":tru}"#, "invalid literal"),
        (#"{"a":1} trailing"#, "unexpected data after"),
        ("{\"a\":\u{0}1}", "unexpected byte 0x00"),
    ])
    func rejectsBadLines(_ text: String, _ expected: String) {
        let message = failure(text)
        #expect(message?.contains(expected) == true, "\(text) -> \(message ?? "accepted")")
    }

    @Test(arguments: [
        (#"{"a":{"b":1,"b":2}}"#, "b"),
        (#"{"a":{"b":1,"\u0062":2}}"#, "b"),
        (#"{"a":[{"x":1},{"y":{"z":1,"w":2,"z":3}}]}"#, "z"),
        (#"{"a":{"b":{"c":1},"b":2}}"#, "b"),
        (#"{"o":{"p":1},"o":2}"#, "o"),
    ])
    func rejectsDuplicateKeysAtAnyDepth(_ text: String, _ key: String) {
        #expect(failure(text) == "duplicate key \"\(key)\"", "\(text)")
    }

    @Test func keysAreComparedAsBytesNotAsCanonicalText() throws {
        // "é" precomposed (NFC) and as e + combining acute (NFD): equal Strings, different keys.
        let nfc = "\u{E9}", nfd = "e\u{301}"
        for padding in [0, 40] {  // below and above the hashing threshold
            let filler = (0..<padding).map { #""f\#($0)":0,"# }.joined()
            #expect(failure("{" + filler + "\"\(nfc)\":1,\"\(nfd)\":2}") == nil, "padding \(padding)")
            #expect(failure("{" + filler + "\"\(nfc)\":1,\"\\u00e9\":2}") == "duplicate key \"\(nfc)\"", "padding \(padding)")
        }
    }

    @Test func sameKeysInDifferentObjectsAreFine() throws {
        // Siblings and parent/child may share key names; only one object's own keys must differ.
        let object = try parse(#"{"a":{"a":{"a":1}},"u":[{"id":1,"t":2},{"id":3,"t":4}],"b":{"id":5},"id":6}"#)
        #expect(object.num("id") == 6)
        #expect(object.arrayElements(object.field("u")!).count == 2)
    }

    @Test func manyKeysAreCheckedByHashing() throws {
        // Past 32 keys an object's keys go into a hash set: 20,000 keys parse quickly, and a
        // duplicate anywhere among them (escaped or not, first or last) is still found.
        func object(_ count: Int, extra: String = "", nested: Bool) -> String {
            let body = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + extra
            return nested ? #"{"type":"t","inner":{"# + body + "}}" : "{" + body + "}"
        }
        for nested in [false, true] {
            #expect(failure(object(20_000, nested: nested)) == nil)
            #expect(failure(object(20_000, extra: #","k0":1"#, nested: nested)) == "duplicate key \"k0\"")
            #expect(failure(object(20_000, extra: #","k19999":1"#, nested: nested)) == "duplicate key \"k19999\"")
            #expect(failure(object(40, extra: #","\u006b5":1"#, nested: nested)) == "duplicate key \"k5\"")
            #expect(failure(object(33, extra: #","k32":1"#, nested: nested)) == "duplicate key \"k32\"")
        }
        // A large object holding small ones, and a small one after a large one closed.
        #expect(failure(#"{"big":"# + object(100, nested: false) + #","s":{"a":1,"a":2}}"#) == "duplicate key \"a\"")
        #expect(failure(#"{"x":{"# + (0..<50).map { "\"q\($0)\":{\"a\":1,\"b\":2}" }.joined(separator: ",") + "}}") == nil)
    }

    @Test func numbersAreShortestAndReadBackExactly() throws {
        func written(_ value: Double) -> String {
            var writer = JSONWriter()
            writer.number(value)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        #expect(written(43.40332) == "43.40332")
        #expect(written(-98.82952) == "-98.82952")
        #expect(written(6.90468887898) == "6.90468887898")
        #expect(written(0.5) == "0.5")
        #expect(written(-0.00001) == "-0.00001")
        #expect(written(0.1 + 0.2) == "0.30000000000000004")
        #expect(written(46) == "46")
        #expect(written(1e20) == "1e+20")
        var random = TestSupport.Random(seed: 11)
        for _ in 0..<100_000 {
            let bits = random.next()
            // Decimals with 0-7 fraction digits (the fast path and its edge), and arbitrary doubles.
            let digits = Int(bits % 8)
            let decimal = Double(Int64(bitPattern: random.next()) % 100_000_000_000) / pow(10, Double(digits))
            let arbitrary = Double(bitPattern: random.next())
            for value in [decimal, arbitrary, decimal / 1000] where value.isFinite {
                let text = written(value)
                #expect(Double(text) == value, "\(value) -> \(text)")
                // Where Swift prints plain digits, the text is exactly Swift's (the shortest).
                let swift = value.description
                if !swift.contains("e") && value != value.rounded(.towardZero) {
                    #expect(text == swift, "\(value): \(text) vs \(swift)")
                }
            }
        }
    }

    @Test func keysAreWrittenWithTheirCommas() {
        var writer = JSONWriter()
        writer.objectStart()
        writer.key("a"); writer.int(1)
        writer.key("a key longer than sixty bytes, which is written the other way round"); writer.int(2)
        writer.key("b"); writer.arrayStart(); writer.arrayEnd()
        writer.objectEnd()
        #expect(String(decoding: writer.bytes, as: UTF8.self)
                == #"{"a":1,"a key longer than sixty bytes, which is written the other way round":2,"b":[]}"#)
    }

    @Test func integersAreWrittenExactly() {
        func written(_ body: (inout JSONWriter) -> Void) -> String {
            var writer = JSONWriter()
            body(&writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        for value in [0, 7, 9, 10, -1, -9, -10, 99, 100, 1_000_000_007, Int.max, Int.min, Int.min + 1] {
            #expect(written { $0.int(value) } == String(value))
        }
        #expect(written { $0.number(-0.0) } == "0")
        #expect(written { $0.number(-12.0) } == "-12")
        #expect(written { $0.number(999_999_999_999_999) } == "999999999999999")
        var random = TestSupport.Random(seed: 12)
        for _ in 0..<100_000 {
            let value = Int(bitPattern: UInt(random.next())) >> Int(random.next() % 64)
            #expect(written { $0.int(value) } == String(value))
            let double = Double(value % 1_000_000_000_000_000)
            #expect(written { $0.number(double) } == String(Int(double)))
        }
    }

    @Test func wordAtATimeStringScanAgreesWithBytes() throws {
        func reference(_ word: UInt64) -> Bool {
            (0..<8).contains { k in
                let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(k)))
                return byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C
            }
        }
        var random = TestSupport.Random(seed: 7)
        let alphabet: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF, 0x41, 0x61]
        for _ in 0..<200_000 {
            var word: UInt64 = 0
            for k in 0..<8 {
                // Mostly plain letters, sometimes a byte from the edges of each class.
                let byte = random.next() % 4 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(0x20 + random.next() % 0x5F)
                word |= UInt64(byte) << (8 * UInt64(k))
            }
            #expect(JSONScanner.hasSpecialByte(word) == reference(word), "\(String(word, radix: 16))")
            // The scan jumps to the lowest flagged byte: it must be the first special one.
            let first = (0..<8).first { k in
                let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(k)))
                return byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C
            }
            let special = JSONScanner.specialBytes(word)
            #expect((special == 0 ? nil : special.trailingZeroBitCount >> 3) == first, "\(String(word, radix: 16))")
        }
        // Strings whose special byte sits at every offset of a word, through the real parser.
        for offset in 0..<24 {
            let plain = String(repeating: "x", count: offset)
            #expect(try parse(#"{"s":"\#(plain)\"q"}"#).str("s") == plain + "\"q")
            #expect(try parse(#"{"s":"\#(plain)é"}"#).str("s") == plain + "é")
            #expect(failure(#"{"s":"\#(plain)"# + "\u{01}" + #""}"#)?.contains("control character") == true)
            #expect(failure(#"{"s":"\#(plain)"#)?.contains("unterminated string") == true)
        }
    }

    @Test func rejectsDeepNestingWithoutRecursingFar() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(failure(#"{"a":"# + deep + "}")?.contains("nesting deeper than 64") == true)
    }

    @Test func rejectsInvalidUTF8() {
        var bytes = Array(#"{"name":"ab"}"#.utf8)
        bytes.insert(0xC3, at: 10)  // a lead byte with no continuation
        _ = bytes.withUnsafeBytes { raw in
            #expect(throws: JSONError.self) { try JSONObject(parsing: raw) }
        }
        let overlong: [UInt8] = Array(#"{"n":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)
        _ = overlong.withUnsafeBytes { raw in
            #expect(throws: JSONError.self) { try JSONObject(parsing: raw) }
        }
    }

    @Test func hugeNumbersAreOutOfRangeNotInfinite() throws {
        // Refused when the line is parsed, whatever the field (JSONNumberRangeTests has more).
        #expect(throws: JSONError("number 1e400 is outside a double's range", at: 12)) { try parse(#"{"latitude":1e400}"#) }
    }

    @Test func stringNumbersAreWrongTypes() throws {
        let object = try parse(#"{"latitude":"NaN"}"#)
        #expect(throws: MessageError("field \"latitude\" must be a number, found the string \"NaN\"", code: .fieldType)) { try object.requireNumber("latitude") }
    }

    @Test func writerRoundTripsEscapesAndNumbers() throws {
        var writer = JSONWriter()
        writer.objectStart()
        writer.key("s"); writer.string("quote\" back\\ nl\n ctl\u{01} é 😀")
        writer.key("i"); writer.number(46)
        writer.key("f"); writer.number(64.03999999999999)
        writer.key("inf"); writer.number(Double.infinity)
        writer.key("a"); writer.arrayStart(); writer.int(1); writer.null(); writer.bool(false); writer.arrayEnd()
        writer.objectEnd()
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == #"{"s":"quote\" back\\ nl\n ctl\u0001 é 😀","i":46,"f":64.03999999999999,"inf":null,"a":[1,null,false]}"#)
        let object = try JSONObject(parsing: text)
        #expect(object.str("s") == "quote\" back\\ nl\n ctl\u{01} é 😀")
        // Integers of every size and sign, and plain strings copied whole, short and long.
        var ints = JSONWriter()
        ints.arrayStart()
        let values = [0, 7, 10, -1, -10, 99, 100, 123_456_789, Int.max, Int.min, -987_654_321]
        for value in values { ints.int(value) }
        for text in ["", "K1D3", "a plain name longer than fifteen bytes", "del\u{7F}", "PLATTE 46°"] { ints.string(text) }
        ints.arrayEnd()
        #expect(String(decoding: ints.bytes, as: UTF8.self) == "[" + values.map(String.init).joined(separator: ",")
                + #","","K1D3","a plain name longer than fifteen bytes","del\u007f","PLATTE 46°"]"#)
    }
}


@Suite struct CanonicalNumberTests {
    func printed(_ value: Double) -> String {
        var writer = JSONWriter()
        writer.number(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func canonical(_ text: String) -> Bool { JSONWriter.isCanonicalShortNumber(Array(text.utf8)[...]) }

    @Test func edgeCases() {
        for text in ["0", "-1", "36.94342", "-122.1088", "0.5", "-0.5", "0.00001", "179.99999", "999999999", "-999999999.99999"] {
            #expect(canonical(text), "\(text)")
            #expect(printed(Double(text)!) == text, "\(text)")
        }
        for text in ["-0", "1.50", "40.0", "01", "1e5", "1E5", "0.000001", "1234567890", ".5", "5.", "-", "", "1.123456", "--1"] {
            #expect(!canonical(text), "\(text)")
        }
    }

    /// Whatever it accepts, the writer prints identically; what the writer prints for a short
    /// decimal, it accepts.
    @Test func agreesWithTheWriter() {
        var rng = TestSupport.Random(seed: 5)
        for _ in 0..<20_000 {
            let digits = Int(rng.next() % 8)
            let whole = Int(rng.next() % 1_000_000) * (rng.next() % 2 == 0 ? 1 : -1)
            var text = "\(whole)"
            if digits > 0 { text += "." + (0..<digits).map { _ in String(rng.next() % 10) }.joined() }
            if canonical(text) { #expect(printed(Double(text)!) == text, "\(text)") }
            let value = Double(text)!
            let out = printed(value)
            if digits <= 5 && value != 0 { #expect(canonical(out), "\(text) printed as \(out)") }
        }
    }
}
