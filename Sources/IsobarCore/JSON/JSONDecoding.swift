#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decoding of scanned (already validated) JSON strings and numbers.
enum JSONDecoding {
    /// Decodes the contents of a string (the bytes between the quotes), resolving escapes.
    static func unescape(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        var hasEscape = false
        for i in range where bytes[i] == UInt8(ascii: "\\") { hasEscape = true; break }
        if !hasEscape {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = bytes[i]
            guard byte == UInt8(ascii: "\\"), i + 1 < range.upperBound else {
                out.append(byte)
                i += 1
                continue
            }
            let kind = bytes[i + 1]
            i += 2
            switch kind {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hex4(bytes, i))
                i += 4
                if (0xD800...0xDBFF).contains(scalar), i + 6 <= range.upperBound {
                    let low = UInt32(hex4(bytes, i + 2))
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(value)).utf8))
            default: out.append(kind)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex4(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt16 {
        var value: UInt16 = 0
        for k in 0..<4 { value = value << 4 | UInt16(JSONScanner.hexValue(bytes[at + k]) ?? 0) }
        return value
    }

    /// 10 to the power `exponent` (0 through 22, each exact as a `Double`), by a switch (a table
    /// in the binary, without a lazily made global array's check on every read). Shared by
    /// ``parseNumber(_:_:)`` and the client's number reader (`AnnotationItemScan.number`).
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

    /// Parses a validated JSON number. Short numbers (at most 15 significant digits and a small
    /// exponent) take Clinger's exact fast path; anything else goes through `strtod`.
    static func parseNumber(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Double {
        var i = range.lowerBound
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var simple = true
        while i < range.upperBound, JSONScanner.isDigit(bytes[i]) {
            if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 48) } else { exponent += 1 }
            if mantissa != 0 { digits += 1 }
            i += 1
        }
        if i < range.upperBound, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < range.upperBound, JSONScanner.isDigit(bytes[i]) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 48)
                    exponent -= 1
                    if mantissa != 0 { digits += 1 }
                }
                i += 1
            }
        }
        if i < range.upperBound { simple = false }  // has an exponent part
        if simple && digits <= 15 && exponent >= -22 && exponent <= 0 {
            let value = Double(mantissa) / powerOfTen(-exponent)
            return negative ? -value : value
        }
        var text = [CChar](repeating: 0, count: range.count + 1)
        for (k, index) in range.enumerated() { text[k] = CChar(bitPattern: bytes[index]) }
        return text.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
    }

    /// The elements of a validated array: their byte ranges and kinds.
    static func arrayElements(_ storage: [UInt8], _ range: Range<Int>) -> [(range: Range<Int>, kind: JSONKind)] {
        var elements: [(range: Range<Int>, kind: JSONKind)] = []
        storage.withUnsafeBytes { raw in forEachArrayElement(raw, range) { elements.append(($0, $1)) } }
        return elements
    }

    /// Calls `body` with the byte range and kind of each element of a validated array, in order,
    /// without collecting them (a client's `remove` ids, read where they lie).
    static func forEachArrayElement(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, _ body: (Range<Int>, JSONKind) -> Void) {
        var scanner = JSONScanner(raw, start: range.lowerBound + 1, maxDepth: Int.max)
        scanner.isValidated = true
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "]") { return }
        while !scanner.atEnd {
            scanner.skipWhitespace()
            let start = scanner.index
            guard let kind = try? scanner.scanValue(depth: 0) else { return }
            body(start..<scanner.index, kind)
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { return }
            scanner.index += 1
            if next != UInt8(ascii: ",") { return }
        }
    }
}
