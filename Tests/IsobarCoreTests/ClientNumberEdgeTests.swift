import Testing
@testable import IsobarCore

/// The client's number reader (`AnnotationItemScan.number`) at its edges: exact values where the
/// formatter's numbers lie, and the scanner's verdict with `JSONDecoding.parseNumber`'s bits for
/// every number, whether more of the line follows it or it ends the line.
@Suite struct ClientNumberEdgeTests {
    /// The number at the start of `text`, and where the scanner was left.
    func read(_ text: String) -> (value: Double?, end: Int) {
        TestSupport.withLine(text) { raw in
            var scanner = JSONScanner(raw)
            let value = AnnotationItemScan.number(&scanner)
            return (value, scanner.index)
        }
    }

    /// The general route's verdict on the number at the start of `text`: the scanner's check,
    /// then `parseNumber` (nil for no number or an infinite one), and where the number ends.
    func general(_ text: String) -> (value: Double?, end: Int) {
        TestSupport.withLine(text) { raw in
            var scanner = JSONScanner(raw)
            guard let first = scanner.peek(), first == UInt8(ascii: "-") || JSONScanner.isDigit(first),
                  (try? scanner.scanValue(depth: 1)) == .number else { return (nil, 0) }
            let value = JSONDecoding.parseNumber(raw, 0..<scanner.index) + 0.0
            return (value.isFinite ? value : nil, scanner.index)
        }
    }

    /// Exact values of the formatter's kind of number, fractions of 1 through 13 digits, read both
    /// with more of the line after them and at its very end.
    @Test(arguments: [#","longitude":-96.11408}"#, ""])
    func formattersNumbersReadExactly(after: String) {
        let cases: [(String, Double)] = [
            ("30.5571", 30.5571), ("-96.11408", -96.11408), ("0.5", 0.5), ("45.12345678", 45.12345678),
            ("45.123456789", 45.123456789), ("-179.9999999999999", -179.9999999999999),
            ("12.3456789012345", 12.3456789012345), ("0.9", 0.9), ("89.99999999", 89.99999999),
            ("123456789012345", 123_456_789_012_345), ("7", 7), ("-0.00000001", -0.00000001),
        ]
        for (text, value) in cases {
            let read = read(text + after)
            #expect(read.value == value, "\(text)")
            #expect(read.end == text.utf8.count, "\(text)")
        }
    }

    /// The edges: 19 digits (the most the quick route takes; past 1e15 it defers to
    /// `parseNumber`), exponents, negative zero (zero, as `optionalNumber` gives it), and what is
    /// no number (`1.`, `.5`, `01`, `-`): the general route's verdict, bits and end every time.
    @Test(arguments: [#","longitude":-96.11408}"#, "}", ""])
    func edgesGiveTheGeneralRoutesVerdict(after: String) {
        let texts = ["1234567890123456789", "0.1234567890123456789", "123456789.0123456789", "999999999999999.9",
                     "99999999999999.99", "1e2", "1E-2", "-1.5e+3", "1e400", "-1e400", "2.5e-400",
                     "-0", "-0.0", "-0.00000000", "0", "0.0",
                     "1.", "1.e5", ".5", "01", "-", "-.5", "1.x", "00.5", "1..5",
                     "12345678.12345678", "1.1234567890123456", "0.00000000000000000001"]
        for text in texts {
            let line = text + after
            let fast = read(line), slow = general(line)
            #expect(fast.value?.bitPattern == slow.value?.bitPattern, "\(line)")
            if fast.value != nil { #expect(fast.end == slow.end, "\(line)") }
        }
        #expect(read("-0" + after).value?.bitPattern == (0.0).bitPattern)
        #expect(read("1." + after).value == nil)
        #expect(read("1234567890123456789" + after).value == Double("1234567890123456789"))
        #expect(read("1E-2" + after).value == 0.01)
    }
}
