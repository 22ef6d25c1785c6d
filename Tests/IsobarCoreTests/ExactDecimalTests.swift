import Foundation
import Testing
@testable import IsobarCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ExactDecimal` (the viewport reader's number parser) against `strtod`: for every text it
/// accepts, the same bits; and it accepts the usual shapes (so the fast path is the one taken).
struct ExactDecimalTests {
    /// `strtod`'s reading of `text`.
    private func strtodValue(_ text: String) -> Double {
        text.withCString { strtod($0, nil) }
    }

    private func parsed(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { ExactDecimal.parse($0, 0..<$0.count) }
    }

    /// The texts the fast reader gave a different value for than strtod (with both values).
    private func mismatches(_ texts: [String]) -> [String] {
        texts.compactMap { text in
            guard let value = parsed(text) else { return nil }
            let expected = strtodValue(text)
            return value.bitPattern == expected.bitPattern ? nil : "\(text): \(value) vs strtod \(expected)"
        }
    }

    @Test func edgeCasesReadAsStrtodReadsThem() {
        let texts = [
            "0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "0.2", "0.3", "-0.3", "1.5", "90", "-180", "180.0",
            "9007199254740992", "9007199254740993", "9007199254740995", "9007199254740997",  // ties at 2^53
            "18014398509481985", "18014398509481987", "9999999999999999999", "1000000000000000000",
            "0.000000000000000000000000001", "0.000000000000000000000000009",  // 27 fraction digits
            "1.7976931348623157", "2.2250738585072014", "4.9406564584124654", "1.00000000000000011102230246251565",
            "1.0000000000000001110223024625156", "1.000000000000000111", "1.000000000000000112", "0.50000000000000005551",
            "47.123456789012345", "-122.41941550000001", "64.94184977420724", "0.5616883477041833", "0.7021104346302292",
            "89.99999999999999", "-89.999999999999986", "179.99999999999997", "0.30000000000000004", "123456789.12345678",
            "5e-324", "1e5", "1.", ".5", "", "-", "--1", "1.2.3", "12345678901234567890", "0.0000000000000000000000000001",
        ]
        #expect(mismatches(texts) == [])
        // The shapes a viewport comes in are read here, not handed on.
        for text in ["0", "-0.0", "47.123456789012345", "-122.41941550000001", "0.000000000000000000000000001", "9999999999999999999"] {
            #expect(parsed(text) != nil, "\(text)")
        }
        // What it leaves to the general reader: an exponent, a 20th digit, a 28th fraction digit, malformed text.
        for text in ["5e-324", "1e5", "12345678901234567890", "0.0000000000000000000000000001", "1.", ".5", "", "-", "--1", "1.2.3"] {
            #expect(parsed(text) == nil, "\(text)")
        }
        #expect(parsed("-0")?.sign == .minus)
    }

    /// Every power the parser divides by, against repeated (checked) multiplication.
    @Test func powersOfFiveAreExact() {
        var expected: UInt64 = 1
        for k in 0...27 {
            #expect(ExactDecimal.powerOfFive(k) == expected, "5^\(k)")
            if k < 27 { expected *= 5 }
        }
    }

    @Test func generatedDecimalsReadAsStrtodReadsThem() {
        var rng = TestSupport.Random(seed: 20_261_127)
        var texts: [String] = []
        for _ in 0..<40_000 {
            // Doubles as coordinates and spans are printed (shortest round trip), and to fixed places.
            let value = Double(bitPattern: rng.next() >> 2 | 0x3C00_0000_0000_0000) * (rng.next() % 2 == 0 ? 1 : -1)
            texts.append("\(value)")
            let coordinate = Double(Int64(bitPattern: rng.next()) % 180_000_000_000) / 1e9
            texts.append("\(coordinate)")
            texts.append(String(format: "%.\(Int(rng.next() % 20))f", coordinate))
        }
        for _ in 0..<60_000 {
            // Random digit strings of 1 to 22 digits with the point anywhere: ties and near-ties included.
            let count = 1 + Int(rng.next() % 22)
            var digits = (0..<count).map { _ in Character(String(rng.next() % 10)) }
            if digits.count > 1 && digits[0] == "0" { digits[0] = "1" }
            var text = String(digits)
            let point = Int(rng.next() % UInt64(count + 1))
            if point > 0 && point < count { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if rng.next() % 2 == 0 { text = "-" + text }
            texts.append(text)
        }
        for _ in 0..<20_000 {
            // Exact halfway points between neighbouring doubles (a 54-bit odd integer times a power
            // of two, written out in full): round to even, and a bug in the remainder shows here.
            let odd = 2 * (rng.next() % (1 << 52) + (1 << 52)) + 1
            let j = 1 + Int(rng.next() % 3)
            let scaledUp = odd * ExactDecimal.powerOfFive(j)  // odd * 2^-j, times 10^j
            var text = String(scaledUp)
            text.insert(".", at: text.index(text.endIndex, offsetBy: -j))
            texts.append(text)
            texts.append(String(odd << UInt64(1 + Int(rng.next() % 9))))
        }
        #expect(mismatches(texts) == [])
        let read = texts.filter { parsed($0) != nil }.count
        #expect(read > texts.count / 2, "only \(read) of \(texts.count) read by the fast path")
    }
}
