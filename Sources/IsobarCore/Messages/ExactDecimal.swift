/// Reads a plain JSON decimal (`-?digits(.digits)?`, no exponent) as the nearest `Double`, exactly
/// as `strtod` rounds it, with integer arithmetic only: no C string, no allocation, no locale.
///
/// Why: a viewport carries four numbers, usually printed shortest-round-trip with 16 or 17
/// significant digits, past the 15 digits of the exact fast path in `JSONDecoding.parseNumber`;
/// each then went through a copy into a C string and `strtod`, about a seventh of the filter's
/// instructions per small pan (issue 32).
///
/// How: the digits form an integer `m` below 10^19 and the value is `m / 10^k` = `m / 5^k / 2^k`.
/// With `k` at most 27, `5^k` fits in 64 bits, so a 128-by-64-bit division of `m` shifted left
/// gives a quotient of 63 or 64 bits and a remainder; a nonzero remainder sets the quotient's
/// lowest bit (far below the 53 bits kept, so it only breaks what would otherwise look like a
/// tie), and the conversion of that quotient to `Double`, which rounds to nearest even, then
/// rounds the exact value correctly. Scaling by a power of two is exact at these magnitudes.
/// Anything else (more than 19 significant digits, more than 27 fraction digits, an exponent, a
/// malformed number) gives nil and the caller reads it the general way.
enum ExactDecimal {
    /// 5^k for k in 0...27 (5^27 < 2^63), by squaring: at most five squarings and five products,
    /// where a table was a lazily initialised global (a once-check and a bounds check on every
    /// number of every viewport).
    @inline(__always)
    static func powerOfFive(_ k: Int) -> UInt64 {
        var result: UInt64 = 1, base: UInt64 = 5, k = k
        while k > 0 {
            if k & 1 != 0 { result &*= base }
            base &*= base  // wraps after 5^32, which is never used: k <= 27 has no bit above 16
            k >>= 1
        }
        return result
    }

    /// The value of `bytes[range]`, rounded as `strtod` rounds it; nil when the text is not a plain
    /// decimal this reader handles (the caller then uses the general reader). -0 stays -0.
    static func parse(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Double? {
        var i = range.lowerBound
        let end = range.upperBound
        guard i < end else { return nil }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var scale = 0
        let wholeStart = i
        while i < end {
            let digit = bytes[i] &- 48
            guard digit < 10 else { break }
            guard mantissa < 1_000_000_000_000_000_000 else { return nil }  // a 20th significant digit
            mantissa = mantissa * 10 + UInt64(digit)
            i += 1
        }
        guard i > wholeStart else { return nil }
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < end {
                let digit = bytes[i] &- 48
                guard digit < 10 else { break }
                guard mantissa < 1_000_000_000_000_000_000 else { return nil }
                mantissa = mantissa * 10 + UInt64(digit)
                scale += 1
                i += 1
            }
            guard i > fractionStart else { return nil }
        }
        guard i == end, scale <= 27 else { return nil }
        let sign: FloatingPointSign = negative ? .minus : .plus
        guard mantissa != 0 else { return negative ? -0.0 : 0.0 }
        guard scale > 0 else { return Double(sign: sign, exponent: 0, significand: Double(mantissa)) }
        let divisor = powerOfFive(scale)
        // Shift so the quotient has 63 or 64 bits: m << s < 2^(63 + bits(d)) keeps it below 2^64.
        let shift = 63 - (64 - mantissa.leadingZeroBitCount) + (64 - divisor.leadingZeroBitCount)
        let high: UInt64, low: UInt64
        if shift >= 64 {
            high = mantissa << (shift - 64)
            low = 0
        } else if shift == 0 {
            high = 0
            low = mantissa
        } else {
            high = mantissa >> (64 - shift)
            low = mantissa << shift
        }
        let (quotient, remainder) = divisor.dividingFullWidth((high: high, low: low))
        let sticky = quotient | (remainder != 0 ? 1 : 0)
        return Double(sign: sign, exponent: -(shift + scale), significand: Double(sticky))
    }
}
