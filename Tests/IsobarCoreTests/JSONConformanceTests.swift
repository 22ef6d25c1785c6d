import Foundation
import Testing
@testable import IsobarCore

/// A conformance corpus from RFC 8259's grammar (value, object, array, number, string, whitespace),
/// plus the project's own rules (duplicate keys, a double's range, nesting), run against the scanner.
/// Values are wrapped as `{"v":VALUE}` because a line is one object. Where RFC 8259 leaves a choice
/// to the parser, the comment says which one Isobar makes.
@Suite struct JSONConformanceTests {
    /// Values every conforming parser accepts.
    static let acceptedValues = [
        "0", "-0", "1", "-1", "123", "1.5", "-1.5", "0.5", "1e5", "1E5", "1e+5", "1e-5", "1.5e10", "-0.0e-0",
        "12345678901234567890",                                    // beyond Int64, still a double
        "true", "false", "null",
        #""""#, #""a""#, #""\"""#, #""\\""#, #""\/""#, #""\b\f\n\r\t""#, #""\u0041""#, #""\u00e9""#,
        #""\uD83D\uDE00""#,                                       // a surrogate pair (U+1F600)
        "\"é\"", "\"日本\"", "\"\u{1F600}\"",                     // raw UTF-8 of 2, 3 and 4 bytes
        "\"\u{7F}\"",                                              // DEL is not a control character in JSON
        "[]", "[1]", "[1,2,3]", "[[]]", "[{}]", #"[1,"a",true,null,{"k":[]}]"#,
        "{}", #"{"a":1}"#, #"{"a":{"b":{"c":[]}}}"#, #"{"":0}"#,
        " 1", "1 ", "\t1\n", "[ 1 , 2 ]", "{ \"a\" : 1 }", "[\r\n]",
    ]

    /// Values every conforming parser refuses.
    static let refusedValues = [
        "", "01", "-", "+1", ".5", "1.", "1.e5", "1e", "1e+", "--1", "0x10", "1_000", "Infinity", "-Infinity", "NaN",
        "tru", "True", "nul", "NULL", "fals",
        "'a'", #""a"#, #""\x""#, #""\u12""#, #""\u12G4""#, "\"\u{01}\"", "\"a\nb\"", "\"\t\"",
        "[", "]", "[1,]", "[,1]", "[1 2]", "[1,,2]", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{a:1}",
        "{\"a\":1,}", "{,\"a\":1}", "{\"a\":1 \"b\":2}", "[1]]", "1 2",
        "\u{00A0}1",                                               // only space, tab, LF and CR are whitespace
    ]

    /// Isobar's choices where RFC 8259 allows several.
    static let refusedByIsobar = [
        #"{"a":1,"a":2}"#,            // duplicate keys are an error (no "last one wins")
        "1e400", "-1e400",            // beyond a double's range
        #""\uD800""#, #""\uDC00x""#,  // lone surrogates: no valid UTF-8 for them
    ]

    func line(_ value: String) -> [UInt8] { Array(#"{"v":"#.utf8) + Array(value.utf8) + Array("}".utf8) }

    @Test(arguments: acceptedValues)
    func accepts(_ value: String) {
        #expect(throws: Never.self) { try JSONObject(storage: line(value)) }
    }

    @Test(arguments: refusedValues + refusedByIsobar)
    func refuses(_ value: String) {
        #expect(throws: JSONError.self) { try JSONObject(storage: line(value)) }
    }

    @Test func invalidUTF8IsRefused() {
        for bytes: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xC3]] {
            let line = Array(#"{"v":""#.utf8) + bytes + Array(#""}"#.utf8)
            #expect(throws: JSONError.self) { try JSONObject(storage: line) }
        }
    }

    @Test func aLineIsOneObject() {
        for text in ["[]", "1", #""a""#, "null", "{} {}", "{}x", ""] {
            #expect(throws: JSONError.self) { try JSONObject(parsing: text) }
        }
        #expect(throws: Never.self) { try JSONObject(parsing: " {} ") }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONError.self) { try JSONObject(storage: line(deep)) }
        let fine = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        #expect(throws: Never.self) { try JSONObject(storage: line(fine)) }
    }

    /// Differential: on every case of the corpus where the RFC leaves no choice, Foundation's
    /// JSONSerialization makes the same accept/reject decision.
    @Test func foundationAgreesOnTheUnambiguousCases() {
        for value in Self.acceptedValues {
            let data = Data(line(value))
            #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "Foundation refuses \(value)")
        }
        // Foundation is lenient on a few refusals (it is not the reference here); count the rest.
        var agreed = 0
        for value in Self.refusedValues where (try? JSONSerialization.jsonObject(with: Data(line(value)))) == nil { agreed += 1 }
        #expect(agreed >= Self.refusedValues.count - 6, "Foundation accepted \(Self.refusedValues.count - agreed) of the refused cases")
    }
}
