/// A small strict JSON parser for the conformance kit's files and the output lines of the program
/// under test. Besides the value it can give the byte range of each element of a top-level
/// object's array field (`elementRanges`), so a vector's input lines are written byte for byte as
/// the vector has them (a number such as 9000000000000001 stays as written).
struct ConformanceJSONParser {
    private let bytes: [UInt8]
    private var at = 0
    private var depth = 0
    /// The byte ranges of the elements of the array under `rangesKey` in the top-level object.
    private(set) var elementRanges: [Range<Int>] = []
    private let rangesKey: String?

    init(_ bytes: [UInt8], recordingElementsOf key: String? = nil) {
        self.bytes = bytes
        self.rangesKey = key
    }

    /// Parses the whole text as one value (whitespace around it allowed).
    static func parse(_ text: String) throws(ConformanceError) -> ConformanceValue {
        var parser = ConformanceJSONParser(Array(text.utf8))
        return try parser.parseDocument()
    }

    mutating func parseDocument() throws(ConformanceError) -> ConformanceValue {
        skipSpace()
        let value = try parseValue(recordKey: nil)
        skipSpace()
        guard at == bytes.count else { throw fail("text after the value") }
        return value
    }

    private func fail(_ what: String) -> ConformanceError { .notJSON("\(what) at byte \(at)") }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    private mutating func parseValue(recordKey: String?) throws(ConformanceError) -> ConformanceValue {
        guard at < bytes.count else { throw fail("end of text") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray(record: recordKey != nil && recordKey == rangesKey && depth == 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try parseNumber()
        }
    }

    private mutating func literal(_ word: String, _ value: ConformanceValue) throws(ConformanceError) -> ConformanceValue {
        let text = Array(word.utf8)
        guard at + text.count <= bytes.count, Array(bytes[at..<at + text.count]) == text else { throw fail("unexpected character") }
        at += text.count
        return value
    }

    private mutating func parseObject() throws(ConformanceError) -> ConformanceValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 64 else { throw fail("nesting deeper than 64") }
        at += 1
        var fields: [String: ConformanceValue] = [:]
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(fields) }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            at += 1
            skipSpace()
            guard fields[key] == nil else { throw fail("duplicate key \(key)") }
            fields[key] = try parseValue(recordKey: key)
            skipSpace()
            guard at < bytes.count else { throw fail("end of text in an object") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            guard bytes[at] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            at += 1
            return .object(fields)
        }
    }

    private mutating func parseArray(record: Bool) throws(ConformanceError) -> ConformanceValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 64 else { throw fail("nesting deeper than 64") }
        at += 1
        var items: [ConformanceValue] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
        while true {
            skipSpace()
            let start = at
            items.append(try parseValue(recordKey: nil))
            if record { elementRanges.append(start..<at) }
            skipSpace()
            guard at < bytes.count else { throw fail("end of text in an array") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            guard bytes[at] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            at += 1
            return .array(items)
        }
    }

    private mutating func parseNumber() throws(ConformanceError) -> ConformanceValue {
        let start = at
        while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        guard Self.isJSONNumber(bytes[start..<at]), let value = Double(text), value.isFinite else { throw fail("not a JSON value") }
        return .number(value)
    }

    /// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (no leading '+' or
    /// zeros, digits on both sides of '.'), which Swift's `Double(_:)` alone does not enforce.
    private static func isJSONNumber(_ text: ArraySlice<UInt8>) -> Bool {
        var i = text.startIndex
        func digits() -> Int {
            let first = i
            while i < text.endIndex, (48...57).contains(text[i]) { i += 1 }
            return i - first
        }
        if i < text.endIndex, text[i] == UInt8(ascii: "-") { i += 1 }
        guard i < text.endIndex else { return false }
        if text[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < text.endIndex, text[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < text.endIndex, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            if i < text.endIndex, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == text.endIndex
    }

    private mutating func parseString() throws(ConformanceError) -> String {
        at += 1
        var out: [UInt8] = []
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw fail("a control character in a string") }
            guard byte == UInt8(ascii: "\\") else { out.append(byte); at += 1; continue }
            guard at + 1 < bytes.count else { break }
            let kind = bytes[at + 1]
            at += 2
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(kind)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar), at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
                    at += 2
                    let low = try hex4()
                    scalar = (0xDC00...0xDFFF).contains(low) ? 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8))
            default: throw fail("a bad escape")
            }
        }
        throw fail("end of text in a string")
    }

    private mutating func hex4() throws(ConformanceError) -> UInt32 {
        guard at + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
            throw fail("a bad \\u escape")
        }
        at += 4
        return value
    }
}
