extension AnnotationItemScan {
    /// The JSON number at the scanner's position, validated and read in one pass, leaving the
    /// scanner just past it; nil when it is no valid number. Short numbers without an exponent
    /// (at most 15 significant digits and 19 digits in all: every coordinate and count the
    /// formatter writes) are read here exactly as `JSONDecoding.parseNumber` reads them; any
    /// other takes the scanner's check and `parseNumber`. Negative zero reads as zero, as
    /// `optionalNumber` gives it.
    ///
    /// Inlined into its few callers (the coordinate's readers, ``skipValue(_:)``): as a call it
    /// cost its register saves and the scanner's load and store around a few dozen instructions
    /// of work; the rare general route stays out of line (``generalNumber(_:from:)``).
    @inline(__always)
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
            appendDigits(bytes, &i, to: &mantissa)
            fraction = i - first
            guard fraction > 0 else { return nil }
        }
        let exponent = i < count && (bytes[i] | 0x20) == UInt8(ascii: "e")
        // At most 19 digits cannot wrap the mantissa, so it is exact; below 1e15 it has at most 15
        // significant digits, and so has a double (as has every power of ten through 1e19, the
        // most `fraction` can be here): the quotient is the correctly rounded value, as
        // `parseNumber` gives it.
        guard !exponent, digits + fraction <= 19, mantissa < 1_000_000_000_000_000 else {
            return generalNumber(&scanner, from: start)
        }
        scanner.index = i
        let value = Double(mantissa) / JSONDecoding.powerOfTen(fraction)
        return (negative ? -value : value) + 0.0
    }

    /// The number at `start` the general way, leaving the scanner just past it: the scanner's
    /// grammar and range checks, then `parseNumber`; nil when it is no valid, finite number.
    @inline(never)
    private static func generalNumber(_ scanner: inout JSONScanner, from start: Int) -> Double? {
        scanner.index = start
        guard (try? scanner.scanValue(depth: 4)) == .number else { return nil }
        let value = JSONDecoding.parseNumber(scanner.bytes, start..<scanner.index) + 0.0
        return value.isFinite ? value : nil
    }

    /// Appends the ASCII digits at `i` to `mantissa` (as decimal digits, wrapping past 19 of
    /// them), moving `i` past them.
    @inline(__always)
    private static func appendDigits(_ bytes: UnsafeRawBufferPointer, _ i: inout Int, to mantissa: inout UInt64) {
        while i < bytes.count {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i += 1
        }
    }
}
