import Testing
@testable import IsobarCore

/// Numbers beyond a double's range are refused when parsed, in every field (PROTOCOL.md, "Lines").
@Suite struct JSONNumberRangeTests {
    @Test(arguments: [#"{"type":"x","n":1e400}"#, #"{"type":"x","n":-1E+309}"#, #"{"type":"x","a":[1,{"b":2e308}]}"#,
                      #"{"type":"x","n":"# + String(repeating: "9", count: 310) + "}"])
    func outOfRangeNumbersAreErrors(_ line: String) {
        #expect(throws: JSONError.self) { try JSONObject(parsing: line) }
    }

    @Test(arguments: [#"{"type":"x","n":1e-400}"#, #"{"type":"x","n":1.7976931348623157e308}"#, #"{"type":"x","n":-0}"#,
                      #"{"type":"x","n":123456789012345678901234567890}"#, #"{"type":"x","n":5E2}"#])
    func numbersInRangeParse(_ line: String) throws {
        _ = try JSONObject(parsing: line)
    }

    @Test func theFilterRefusesAnOutOfRangeNumberInAFieldNobodyReads() {
        var writer = JSONWriter()
        TestSupport.withLine(#"{"type":"x","n":1e400}"#) { FilterEngine().handle(line: $0, now: 0, into: &writer) }
        let out = TestSupport.objects(writer)
        #expect(out.map { $0.str("type") } == ["error"])
        #expect(out.first?.str("message")?.contains("outside a double's range") == true)
    }
}
