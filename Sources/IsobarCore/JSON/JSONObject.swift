/// One member of a scanned JSON object: where its key and value lie in the document bytes.
public struct JSONField: Sendable {
    /// Key bytes without the quotes (escapes not yet resolved).
    public var keyRange: Range<Int>
    public var keyEscaped: Bool
    /// The value's bytes (for a string: including the quotes).
    public var valueRange: Range<Int>
    public var kind: JSONKind
}

/// A validated JSON object whose members are decoded on demand.
///
/// Parsing checks the whole text (grammar, UTF-8, nesting, duplicate keys) but decodes only what a
/// caller asks for, so a stage pays for the fields it reads and nothing else.
public struct JSONObject: Sendable {
    /// The document the object lives in (shared with nested objects, never copied again).
    public let storage: [UInt8]
    public let fields: [JSONField]
    /// The object's own bytes within `storage`.
    public let range: Range<Int>

    /// Parses `bytes`, which must hold exactly one JSON object (surrounding whitespace allowed).
    public init(parsing bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws(JSONError) {
        try self.init(storage: Array(bytes), maxDepth: maxDepth)
    }

    public init(parsing text: String, maxDepth: Int = 64) throws(JSONError) {
        try self.init(storage: Array(text.utf8), maxDepth: maxDepth)
    }

    public init(storage: [UInt8], maxDepth: Int = 64) throws(JSONError) {
        try self.init(storage: storage, maxDepth: maxDepth, deferring: nil)
    }

    /// Parses like `init(storage:)`, except that the value of the top-level member `key`, when it
    /// is an array, is handed to `reader` with the scanner at its `[`: the reader must validate it
    /// whole and leave the scanner just past its `]` (returning true), or return false, which fails
    /// the parse. The member's items are then read once, by the reader (the formatter's one-pass
    /// `visible` reader), never through this object. Every other byte is checked as usual.
    init(storage: [UInt8], maxDepth: Int = 64, reading key: StaticString, with reader: (inout JSONScanner) -> Bool) throws(JSONError) {
        try self.init(storage: storage, maxDepth: maxDepth, deferring: key, reader: reader)
    }

    private init(storage: [UInt8], maxDepth: Int, deferring deferred: StaticString?,
                 reader: (inout JSONScanner) -> Bool = { _ in false }) throws(JSONError) {
        let scanned: Result<(Range<Int>, [JSONField]), JSONError> = storage.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw, maxDepth: maxDepth)
            scanner.skipWhitespace()
            let start = scanner.index
            guard let first = scanner.peek() else { return .failure(JSONError("empty input", at: 0)) }
            guard first == UInt8(ascii: "{") else {
                if first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") || first == UInt8(ascii: "-")
                    || JSONScanner.isDigit(first) || first == UInt8(ascii: "t") || first == UInt8(ascii: "f")
                    || first == UInt8(ascii: "n") {
                    return .failure(JSONError("expected a JSON object, found another JSON value", at: start))
                }
                return .failure(JSONError("not JSON: unexpected \(JSONScanner.describe(first))", at: start))
            }
            do {
                let fields = try Self.scanMembers(&scanner, depth: 0, deferring: deferred, reader: reader)
                let end = scanner.index
                scanner.skipWhitespace()
                guard scanner.atEnd else {
                    return .failure(JSONError("unexpected data after the object", at: scanner.index))
                }
                return .success((start..<end, fields))
            } catch let error as JSONError {
                return .failure(error)
            } catch {
                return .failure(JSONError("\(error)", at: 0))
            }
        }
        switch scanned {
        case .success(let (range, fields)):
            self.storage = storage
            self.range = range
            self.fields = fields
        case .failure(let error):
            throw error
        }
    }

    /// A nested object of an already validated document.
    init(storage: [UInt8], validatedRange: Range<Int>) {
        self.storage = storage
        self.range = validatedRange
        self.fields = storage.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw, start: validatedRange.lowerBound, maxDepth: Int.max)
            scanner.isValidated = true  // checked when the document was parsed
            return (try? Self.scanMembers(&scanner, depth: 0)) ?? []
        }
    }

    /// Scans `{ "k": v, ... }` at the scanner's position, recording each top-level member.
    private static func scanMembers(_ scanner: inout JSONScanner, depth: Int, deferring deferred: StaticString? = nil,
                                    reader: (inout JSONScanner) -> Bool = { _ in false }) throws(JSONError) -> [JSONField] {
        var fields: [JSONField] = []
        fields.reserveCapacity(16)
        scanner.index += 1  // '{'
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "}") { scanner.index += 1; return fields }
        let keyBase = scanner.keys.open
        defer { scanner.keys.close(base: keyBase) }
        while true {
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "\"") else { throw JSONError("expected a string key", at: scanner.index) }
            let keyStart = scanner.index + 1
            let keyEscaped = try scanner.scanString()
            let keyRange = keyStart..<(scanner.index - 1)
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: ":") else { throw JSONError("expected ':' after key", at: scanner.index) }
            scanner.index += 1
            scanner.skipWhitespace()
            let valueStart = scanner.index
            let kind: JSONKind
            if let deferred, !keyEscaped, scanner.peek() == UInt8(ascii: "["),
               Self.equal(keyRange, deferred, scanner.bytes) {
                guard reader(&scanner) else { throw JSONError("member \"\(deferred)\" declined by its reader", at: valueStart) }
                kind = .array
            } else {
                kind = try scanner.scanValue(depth: depth + 1)
            }
            let field = JSONField(keyRange: keyRange, keyEscaped: keyEscaped, valueRange: valueStart..<scanner.index, kind: kind)
            // Duplicate keys are rejected rather than resolved "last wins": two different readings
            // of the same line (ours and another stage's) must never disagree.
            if !scanner.isValidated,
               let duplicate = scanner.keys.insert(JSONKeySet.Key(range: keyRange, escaped: keyEscaped, in: scanner.bytes),
                                                   base: keyBase, bytes: scanner.bytes) {
                throw JSONError("duplicate key \"\(duplicate)\"", at: keyStart - 1)
            }
            fields.append(field)
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { throw JSONError("unexpected end of input inside object", at: scanner.index) }
            scanner.index += 1
            if next == UInt8(ascii: "}") { return fields }
            guard next == UInt8(ascii: ",") else {
                throw JSONError("expected ',' or '}', found \(JSONScanner.describe(next))", at: scanner.index - 1)
            }
        }
    }

    /// Whether the key bytes at `range` spell `key`.
    @inline(__always) private static func equal(_ range: Range<Int>, _ key: StaticString, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard range.count == key.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base + range.lowerBound, key.utf8Start, range.count) == 0
    }

    // MARK: - Lookup

    /// The member named `key`, or nil when absent.
    public func field(_ key: StaticString) -> JSONField? {
        let count = key.utf8CodeUnitCount
        let base = key.utf8Start
        return storage.withUnsafeBytes { raw in
            for field in fields {
                if field.keyEscaped {
                    let name = JSONDecoding.unescape(raw, field.keyRange)
                    if name.utf8.elementsEqual(UnsafeBufferPointer(start: base, count: count)) { return field }
                    continue
                }
                guard field.keyRange.count == count else { continue }
                if memcmp(raw.baseAddress! + field.keyRange.lowerBound, base, count) == 0 { return field }
            }
            return nil
        }
    }

    /// Every key, decoded (for diagnostics and generic tools).
    public var keys: [String] {
        storage.withUnsafeBytes { raw in fields.map { JSONDecoding.unescape(raw, $0.keyRange) } }
    }

    /// The decoded string value of a string member.
    public func string(_ field: JSONField) -> String? {
        guard field.kind == .string else { return nil }
        let inner = (field.valueRange.lowerBound + 1)..<(field.valueRange.upperBound - 1)
        return storage.withUnsafeBytes { raw in JSONDecoding.unescape(raw, inner) }
    }

    /// The value of a number member (may be infinite when the text overflows a Double).
    public func number(_ field: JSONField) -> Double? {
        guard field.kind == .number else { return nil }
        return storage.withUnsafeBytes { raw in JSONDecoding.parseNumber(raw, field.valueRange) }
    }

    public func bool(_ field: JSONField) -> Bool? {
        guard field.kind == .bool else { return nil }
        return storage[field.valueRange.lowerBound] == UInt8(ascii: "t")
    }

    /// A nested object member.
    public func object(_ field: JSONField) -> JSONObject? {
        guard field.kind == .object else { return nil }
        return JSONObject(storage: storage, validatedRange: field.valueRange)
    }

    /// The elements of an array member, as ranges in `storage` with their kinds.
    public func arrayElements(_ field: JSONField) -> [(range: Range<Int>, kind: JSONKind)] {
        guard field.kind == .array else { return [] }
        return JSONDecoding.arrayElements(storage, field.valueRange)
    }

    /// Calls `body` with each element of an array member, in one pass over it: an object element
    /// comes with its members already found (the element is not scanned twice, as
    /// `arrayElements` + `object(at:)` would), any other element with nil and its kind.
    public func forEachElement<E: Error>(_ field: JSONField, _ body: (JSONObject?, JSONKind) throws(E) -> Void) throws(E) {
        guard field.kind == .array else { return }
        var found: [(JSONObject?, JSONKind)] = []
        storage.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw, start: field.valueRange.lowerBound + 1, maxDepth: Int.max)
            scanner.isValidated = true
            scanner.skipWhitespace()
            if scanner.peek() == UInt8(ascii: "]") { return }
            while !scanner.atEnd {
                scanner.skipWhitespace()
                let start = scanner.index
                if scanner.peek() == UInt8(ascii: "{") {
                    guard let fields = try? Self.scanMembers(&scanner, depth: 0) else { return }
                    found.append((JSONObject(storage: storage, range: start..<scanner.index, fields: fields), .object))
                } else {
                    guard let kind = try? scanner.scanValue(depth: 0) else { return }
                    found.append((nil, kind))
                }
                scanner.skipWhitespace()
                guard let next = scanner.peek() else { return }
                scanner.index += 1
                if next != UInt8(ascii: ",") { return }
            }
        }
        for (object, kind) in found { try body(object, kind) }
    }

    private init(storage: [UInt8], range: Range<Int>, fields: [JSONField]) {
        self.storage = storage
        self.range = range
        self.fields = fields
    }

    /// A nested object found by `arrayElements`.
    public func object(at range: Range<Int>) -> JSONObject {
        JSONObject(storage: storage, validatedRange: range)
    }

    /// The raw bytes of a member's value, exactly as they appear in the input.
    public func rawValue(_ field: JSONField) -> ArraySlice<UInt8> { storage[field.valueRange] }

    /// The object's own bytes exactly as received.
    public var rawBytes: ArraySlice<UInt8> { storage[range] }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
