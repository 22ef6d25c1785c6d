extension AnnotationItemScan {
    /// The JSON number at the scanner's position, validated and read in one pass, leaving the
    /// scanner just past it; nil when it is no valid number. Short numbers without an exponent
    /// (at most 15 significant digits and 19 digits in all: every coordinate and count the
    /// formatter writes) are read here exactly as `JSONDecoding.parseNumber` reads them; any
    /// other takes the scanner's check and `parseNumber`. Negative zero reads as zero, as
    /// `optionalNumber` gives it.
    static func number(_ scanner: inout JSONScanner) -> Double? {
        let bytes = scanner.bytes
        let start = scanner.index
        var i = start
        let count = bytes.count
        let negative = i < count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < count, JSONScanner.isDigit(bytes[i]) else { return nil }
        var mantissa: UInt64 = 0
        // The digits read into the mantissa (a leading zero is not), counted once a run ends
        // rather than one by one.
        var digits = 0
        var fraction = 0
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < count && JSONScanner.isDigit(bytes[i]) { return nil }  // a leading zero
        } else {
            let first = i
            appendDigits(bytes, &i, to: &mantissa)
            digits = i - first
        }
        if i < count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let first = i
            // The fraction is where long runs of digits are (up to 15 in a coordinate): eight at a time.
            appendDigitWords(bytes, &i, to: &mantissa)
            fraction = i - first
            guard fraction > 0 else { return nil }
        }
        let exponent = i < count && (bytes[i] | 0x20) == UInt8(ascii: "e")
        // At most 19 digits cannot wrap the mantissa, so it is exact; below 1e15 it has at most 15
        // significant digits, and so has a double (as has every power of ten through 1e19, the
        // most `fraction` can be here): the quotient is the correctly rounded value, as
        // `parseNumber` gives it.
        guard !exponent, digits + fraction <= 19, mantissa < 1_000_000_000_000_000 else {
            // The general route: the scanner's grammar and range checks, then `parseNumber`.
            scanner.index = start
            guard (try? scanner.scanValue(depth: 4)) == .number else { return nil }
            let value = JSONDecoding.parseNumber(bytes, start..<scanner.index) + 0.0
            return value.isFinite ? value : nil
        }
        scanner.index = i
        let value = Double(mantissa) / JSONDecoding.powerOfTen(fraction)
        return (negative ? -value : value) + 0.0
    }

    /// Appends the ASCII digits at `i` to `mantissa` as ``appendDigits(_:_:to:)`` does (the same
    /// value, wrapping alike), eight bytes at a time while eight remain: the run of digits at the
    /// start of a word is found and converted with a few word operations instead of a loop over
    /// its bytes; the last bytes of the line take the loop.
    @inline(__always)
    private static func appendDigitWords(_ bytes: UnsafeRawBufferPointer, _ i: inout Int, to mantissa: inout UInt64) {
        while i + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let run = digitRun(word)
            guard run > 0 else { return }
            mantissa = mantissa &* integerPowerOfTen(run) &+ digitsValue(word, run)
            i += run
            guard run == 8 else { return }
        }
        appendDigits(bytes, &i, to: &mantissa)
    }

    /// How many of the eight bytes of `word` (the first in its lowest byte, as loaded from memory)
    /// are ASCII digits before the first that is not: 0 through 8. Each byte's high bit says
    /// whether it is at least `0` (its low seven bits, once raised by 0x80, minus 0x30 keep the high
    /// bit), is above `9` (its low seven bits plus 0x46 reach it), or is no ASCII at all; no
    /// borrow or carry crosses a byte.
    @inline(__always)
    static func digitRun(_ word: UInt64) -> Int {
        let high: UInt64 = 0x8080_8080_8080_8080
        let atLeastZero = (word | high) &- 0x3030_3030_3030_3030
        let aboveNine = (word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x4646_4646_4646_4646
        let digits = atLeastZero & ~aboveNine & ~word & high
        return (~digits & high).trailingZeroBitCount >> 3
    }

    /// The decimal value of the first `run` bytes of `word` (1 through 8 ASCII digits, the first
    /// the most significant): the digits are moved to the top of the word (zeros before them), then
    /// pairs, fours and eights are combined by multiplication.
    @inline(__always)
    static func digitsValue(_ word: UInt64, _ run: Int) -> UInt64 {
        var value = (word & 0x0F0F_0F0F_0F0F_0F0F) &<< UInt64(8 &* (8 &- run))
        value = (value &* 2561) &>> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
        return ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
    }

    /// 10 to the power `run` (1 through 8) as an integer.
    @inline(__always)
    private static func integerPowerOfTen(_ run: Int) -> UInt64 {
        switch run {
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

    /// Appends the ASCII digits at `i` to `mantissa` (as decimal digits, wrapping past 19 of
    /// them), moving `i` past them.
    @inline(__always)
    private static func appendDigits(_ bytes: UnsafeRawBufferPointer, _ i: inout Int, to mantissa: inout UInt64) {
        let count = bytes.count
        while i < count {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i += 1
        }
    }
}
