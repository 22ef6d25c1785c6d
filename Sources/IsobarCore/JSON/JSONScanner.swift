/// A validating, allocation-free JSON scanner over raw bytes (RFC 8259).
///
/// It checks the full grammar (including UTF-8 inside strings, escapes, number syntax and a nesting
/// limit) and reports where each value starts and ends, but decodes nothing. Decoding is done lazily
/// by `JSONObject` for just the fields a message needs; this is what makes the stages fast enough
/// to beat `jq` on station lines (Foundation's JSONDecoder builds every value first).
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    var index: Int
    let maxDepth: Int
    /// Keys of the open objects, to reject duplicates at every depth.
    var keys = JSONKeySet()
    /// True when re-reading part of a document that was already validated: values are then skipped
    /// by structure alone (quotes, escapes, brackets) and duplicate keys are not looked for, which
    /// makes finding the members of nested objects and array elements several times cheaper.
    var isValidated = false

    init(_ bytes: UnsafeRawBufferPointer, start: Int = 0, maxDepth: Int = 64) {
        self.bytes = bytes
        self.index = start
        self.maxDepth = maxDepth
    }

    var atEnd: Bool { index >= bytes.count }

    @inline(__always) func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// ``skipWhitespace()`` with its common case inline: compact JSON (every line a stage writes)
    /// has no whitespace between tokens, and a call per token to find none was ~4 % of a
    /// million-station snapshot load. Every whitespace byte is at most 0x20, so a byte above it
    /// means there is nothing to skip.
    @inline(__always) mutating func skipWhitespaceIfAny() {
        if index < bytes.count && bytes[index] <= 0x20 { skipWhitespace() }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
                // An indented document (the onX feed: a newline and eight spaces before each
                // member) skips its indentation eight spaces at a time.
                while index + 8 <= bytes.count && bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) == 0x2020_2020_2020_2020 {
                    index += 8
                }
            default: return
            }
        }
    }

    /// Scans one value of any kind starting at `index` (after whitespace) and leaves `index` just past it.
    mutating func scanValue(depth: Int) throws(JSONError) -> JSONKind {
        if isValidated { return skipValidatedValue() }
        skipWhitespace()
        guard let byte = peek() else { throw JSONError("unexpected end of input, expected a value", at: index) }
        switch byte {
        case UInt8(ascii: "\""):
            _ = try scanString()
            return .string
        case UInt8(ascii: "{"):
            try scanContainer(open: byte, depth: depth)
            return .object
        case UInt8(ascii: "["):
            try scanContainer(open: byte, depth: depth)
            return .array
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            return .bool
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            return .bool
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            return .number
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw JSONError("NaN and Infinity are not JSON numbers", at: index)
        default:
            throw JSONError("unexpected \(Self.describe(byte)), expected a value", at: index)
        }
    }

    /// Scans an object or array. Nested containers are scanned recursively up to `maxDepth`,
    /// so a line of 10,000 `[` is rejected quickly instead of exhausting the stack.
    private mutating func scanContainer(open: UInt8, depth: Int) throws(JSONError) {
        guard depth < maxDepth else { throw JSONError("nesting deeper than \(maxDepth) levels", at: index) }
        let isObject = open == UInt8(ascii: "{")
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        index += 1
        skipWhitespace()
        if peek() == close { index += 1; return }
        let keyBase = keys.open
        let checkKeys = isObject && !isValidated
        defer { if checkKeys { keys.close(base: keyBase) } }
        while true {
            if isObject {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw JSONError("expected a string key", at: index) }
                let keyStart = index + 1
                let escaped = try scanString()
                if checkKeys, let duplicate = keys.insert(JSONKeySet.Key(range: keyStart..<(index - 1), escaped: escaped, in: bytes),
                                                          base: keyBase, bytes: bytes) {
                    throw JSONError("duplicate key \"\(duplicate)\"", at: keyStart - 1)
                }
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { throw JSONError("expected ':' after key", at: index) }
                index += 1
            }
            _ = try scanValue(depth: depth + 1)
            skipWhitespace()
            guard let next = peek() else { throw JSONError("unexpected end of input inside \(isObject ? "object" : "array")", at: index) }
            index += 1
            if next == close { return }
            guard next == UInt8(ascii: ",") else {
                throw JSONError("expected ',' or '\(Character(Unicode.Scalar(close)))', found \(Self.describe(next))", at: index - 1)
            }
        }
    }

    /// Scans a string at `index` (which must be a quote). Returns whether it contains escapes.
    mutating func scanString() throws(JSONError) -> Bool {
        if isValidated { return skipValidatedString() }
        let start = index
        index += 1
        var escaped = false
        while index < bytes.count {
            // Fastest path: eight bytes at a time while none is special (a quote, a backslash, a
            // control character or a non-ASCII byte); the first word with one falls through to the
            // byte loop below, which finds exactly which. Long names and padding scan ~5x faster.
            // The lowest flagged byte of a word is exactly the first special one, so the scan
            // lands on it directly instead of stepping there byte by byte.
            while index + 8 <= bytes.count {
                let special = Self.specialBytes(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if special != 0 {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            // Fast path: plain printable ASCII, the bulk of every string.
            if byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return escaped
            case UInt8(ascii: "\\"):
                escaped = true
                try scanEscape()
            case 0x00..<0x20:
                throw JSONError("control character \(Self.describe(byte)) inside a string (escape it)", at: index)
            case 0x80...:
                try scanUTF8Sequence()
            default:
                index += 1
            }
        }
        throw JSONError("unterminated string", at: start)
    }

    // MARK: - Validated documents

    /// Moves past the (valid) value at `index`, returning its kind.
    private mutating func skipValidatedValue() -> JSONKind {
        skipWhitespace()
        guard let byte = peek() else { return .null }
        switch byte {
        case UInt8(ascii: "\""):
            _ = skipValidatedString()
            return .string
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                let next = bytes[index]
                if next == UInt8(ascii: "\"") { _ = skipValidatedString(); continue }
                if next == UInt8(ascii: "{") || next == UInt8(ascii: "[") {
                    depth += 1
                } else if next == UInt8(ascii: "}") || next == UInt8(ascii: "]") {
                    depth -= 1
                }
                index += 1
                if depth == 0 { break }
            }
            return byte == UInt8(ascii: "{") ? .object : .array
        case UInt8(ascii: "t"): index += 4; return .bool
        case UInt8(ascii: "f"): index += 5; return .bool
        case UInt8(ascii: "n"): index += 4; return .null
        default:
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return .number
                default: index += 1
                }
            }
            return .number
        }
    }

    /// Moves past the (valid) string at `index`; returns whether it holds escapes.
    private mutating func skipValidatedString() -> Bool {
        index += 1
        var escaped = false
        while index < bytes.count {
            while index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let special = Self.matches(word, 0x22) | Self.matches(word, 0x5C)
                if special != 0 {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; return escaped }
            if byte == UInt8(ascii: "\\") { escaped = true; index += 2; continue }
            index += 1
        }
        return escaped
    }

    /// Whether any of the eight bytes in `word` is below 0x20, at least 0x80, `"` or `\\`
    /// (bit tricks: a byte is zero in `x` exactly when the `(x - 0x01…) & ~x & 0x80…` test has its
    /// high bit; false positives only occur above a true hit, which the byte loop sorts out).
    @inline(__always) static func hasSpecialByte(_ word: UInt64) -> Bool {
        specialBytes(word) != 0
    }

    /// The high bit of each special byte of `word` (see `hasSpecialByte`); the lowest set bit is
    /// exactly the first special byte in memory order (little-endian loads; a borrow only ever
    /// flags bytes above a true hit).
    @inline(__always) static func specialBytes(_ word: UInt64) -> UInt64 {
        let control = (word &- ones &* 0x20) & ~word & highs
        return (word & highs) | control | matches(word, 0x22) | matches(word, 0x5C)
    }

    @inline(__always) private static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inline(__always) private static var highs: UInt64 { 0x8080_8080_8080_8080 }

    /// The high bit of each byte of `word` that equals `byte` (and possibly of bytes above such a
    /// one: the borrow of the subtraction; callers only ask whether any is set).
    @inline(__always) static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs
    }

    private mutating func scanEscape() throws(JSONError) {
        let at = index
        index += 1
        guard let kind = peek() else { throw JSONError("unterminated escape", at: at) }
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try scanHex4()
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONError("unpaired UTF-16 surrogate escape", at: at)
                }
                index += 2
                let low = try scanHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONError("unpaired UTF-16 surrogate escape", at: at) }
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw JSONError("unpaired UTF-16 surrogate escape", at: at)
            }
        default:
            throw JSONError("invalid escape \\\(Self.describe(kind))", at: at)
        }
    }

    private mutating func scanHex4() throws(JSONError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw JSONError("truncated \\u escape", at: index) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[index]) else { throw JSONError("invalid hex digit in \\u escape", at: index) }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    private mutating func scanUTF8Sequence() throws(JSONError) {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw JSONError("invalid UTF-8: \(Self.describe(lead)) cannot start a character", at: index)
        }
        guard index + length <= bytes.count else { throw JSONError("truncated UTF-8 sequence", at: index) }
        let second = bytes[index + 1]
        guard second >= lower && second <= upper else { throw JSONError("invalid UTF-8 sequence", at: index) }
        for k in 2..<length where bytes[index + k] & 0xC0 != 0x80 {
            throw JSONError("invalid UTF-8 sequence", at: index)
        }
        index += length
    }

    private mutating func scanNumber() throws(JSONError) {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else {
            if peek() == UInt8(ascii: "I") { throw JSONError("NaN and Infinity are not JSON numbers", at: start) }
            throw JSONError("invalid number", at: start)
        }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek(), Self.isDigit(next) {
            throw JSONError("leading zero in number", at: start)
        }
        skipDigits()
        let integerDigits = index - start
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let d = peek(), Self.isDigit(d) else { throw JSONError("digit expected after decimal point", at: index) }
            skipDigits()
        }
        var hasExponent = false
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let d = peek(), Self.isDigit(d) else { throw JSONError("digit expected in exponent", at: index) }
            skipDigits()
        }
        // A number beyond a double's range (1e400) is refused here, in any field, read or not: a
        // consumer in another language would read it as infinity and could not write it back.
        // Only an exponent or over 308 integer digits can get there, so the common case costs nothing.
        if hasExponent || integerDigits > 308 {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if let value = Double(text), !value.isFinite {
                throw JSONError("number \(text.prefix(24)) is outside a double's range", at: start)
            }
        }
    }

    @inline(__always) private mutating func skipDigits() {
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func scanLiteral(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw JSONError("invalid literal", at: index) }
        let base = word.utf8Start
        for k in 0..<count where bytes[index + k] != base[k] {
            throw JSONError("invalid literal", at: index)
        }
        index += count
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
    }
}
