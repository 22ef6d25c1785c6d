extension AnnotationItemScan {
    /// The JSON number at the scanner's position, validated and read in one pass, leaving the
    /// scanner just past it; nil when it is no valid number. Short numbers without an exponent
    /// (at most 15 significant digits and 19 digits in all: every coordinate and count the
    /// formatter writes) are read here exactly as `JSONDecoding.parseNumber` reads them, their
    /// digits eight at a time (``digitRun(_:_:)``); any other takes the scanner's check and
    /// `parseNumber`. Negative zero reads as zero, as `optionalNumber` gives it.
    static func number(_ scanner: inout JSONScanner) -> Double? {
        let bytes = scanner.bytes
        let start = scanner.index
        var i = start
        let count = bytes.count
        let negative = i < count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < count, JSONScanner.isDigit(bytes[i]) else { return nil }
        var mantissa: UInt64 = 0
        // Every digit read into the mantissa (a leading zero is not), and those after the point.
        var digits = 0
        var fraction = 0
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < count && JSONScanner.isDigit(bytes[i]) { return nil }  // a leading zero
        } else {
            while true {
                let run = digitRun(bytes, i)
                mantissa = mantissa &* decimalScale(run.count) &+ run.value
                digits += run.count
                i += run.count
                if run.count < 8 { break }
            }
        }
        if i < count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while true {
                let run = digitRun(bytes, i)
                mantissa = mantissa &* decimalScale(run.count) &+ run.value
                fraction += run.count
                i += run.count
                if run.count < 8 { break }
            }
            guard fraction > 0 else { return nil }
        }
        let exponent = i < count && (bytes[i] | 0x20) == UInt8(ascii: "e")
        // At most 19 digits cannot wrap the mantissa, so it is exact; below 1e15 it has at most 15
        // significant digits, and so has a double (as has every power of ten through 1e22): the
        // quotient is the correctly rounded value, as `parseNumber` gives it.
        guard !exponent, digits + fraction <= 19, mantissa < 1_000_000_000_000_000, fraction <= 22 else {
            // The general route: the scanner's grammar and range checks, then `parseNumber`.
            scanner.index = start
            guard (try? scanner.scanValue(depth: 4)) == .number else { return nil }
            let value = JSONDecoding.parseNumber(bytes, start..<scanner.index) + 0.0
            return value.isFinite ? value : nil
        }
        scanner.index = i
        let value = Double(mantissa) / powerOfTen(fraction)
        return (negative ? -value : value) + 0.0
    }

    /// The ASCII digits at `i` (at most eight: the run goes on when `count` is 8), as a number and
    /// how many they are. Eight bytes are tested and added up at once: a byte is a digit when its
    /// high nibble is 3 and stays 3 with 6 added (0x30-0x39); adding the digits pairwise, then
    /// the pairs, then the fours, gives their value, the first byte the most significant.
    @inline(__always)
    static func digitRun(_ bytes: UnsafeRawBufferPointer, _ i: Int) -> (value: UInt64, count: Int) {
        guard i >= 0, i + 8 <= bytes.count else {
            var value: UInt64 = 0
            var count = 0
            while count < 8, i + count < bytes.count, JSONScanner.isDigit(bytes[i + count]) {
                value = value &* 10 &+ UInt64(bytes[i + count] &- UInt8(ascii: "0"))
                count += 1
            }
            return (value, count)
        }
        let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        let nibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0, threes: UInt64 = 0x3030_3030_3030_3030
        // Non-zero in every byte that is no digit (a carry out of a byte of 0xFA or more only
        // reaches the bytes after it, which do not count: the lowest flagged byte is the first).
        let other = ((word & nibbles) ^ threes) | (((word &+ 0x0606_0606_0606_0606) & nibbles) ^ threes)
        let count = other == 0 ? 8 : other.trailingZeroBitCount >> 3
        guard count > 0 else { return (0, 0) }
        // The digits' values in the top `count` bytes, zeros below (leading zeros of the number).
        var value = (word &- threes) &<< UInt64(64 - 8 * count)
        value = (value &* 10 &+ (value >> 8)) & 0x00FF_00FF_00FF_00FF
        value = (value &* 100 &+ (value >> 16)) & 0x0000_FFFF_0000_FFFF
        value = (value &* 10_000 &+ (value >> 32)) & 0xFFFF_FFFF
        return (value, count)
    }

    /// 10 to the power `digits` (0 through 8): what a mantissa is multiplied by to append a run.
    @inline(__always)
    static func decimalScale(_ digits: Int) -> UInt64 {
        switch digits {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }

    /// 10 to the power `exponent` (0 through 22, each exact as a `Double`), by a switch (a table
    /// in the binary, without the lazily made global array's check on every read).
    @inline(__always)
    static func powerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }
}
