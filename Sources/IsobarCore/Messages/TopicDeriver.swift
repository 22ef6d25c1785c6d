/// Derives the bus topic of a line (see `Topic`) while validating the whole line as one JSON
/// object, without building a `JSONObject`: no copy of the line, no field list, and buffers that
/// are reused from line to line. This is the per-message work of `isobar plug` on its command's
/// output, so it must cost next to nothing beyond the scan itself.
///
/// The result is exactly that of parsing a `JSONObject` and `Topic.derive(from:)` (tests compare
/// the two on every corpus line).
public struct TopicDeriver: Sendable {
    /// The topic of the last line `derive` accepted, as UTF-8 bytes.
    public private(set) var topic: [UInt8] = []
    /// Reused by every scan (a scanner's key stack allocates once, here, not per line).
    private var keys = JSONKeySet()

    /// Which types are routed by partition.
    public let types: MessageTypes

    public init(types: MessageTypes = .standard) {
        self.types = types
        topic.reserveCapacity(256)
    }

    /// Validates `line` and sets `topic`. False when the line is not a JSON object (strictly, as
    /// every stage reads it) with a non-empty string `type`; `topic` is then undefined.
    public mutating func derive(_ line: UnsafeRawBufferPointer) -> Bool {
        var scanner = JSONScanner(line)
        swap(&scanner.keys, &keys)
        defer { swap(&scanner.keys, &keys) }
        guard let (type, client) = Self.scanTopLevel(&scanner) else { return false }
        return build(type: type, client: client, from: line)
    }

    /// `derive` for a line the project's own engine wrote (`isobar filter --bus`, `isobar format
    /// --bus`): valid JSON by construction, each key once. Such lines begin `{"type":"T","client":"C",`
    /// (or `}`), so the topic is read from those bytes and the rest is not scanned again; any other
    /// beginning (no `client` second, an escape) takes `derive`. Gives `derive`'s topic for every
    /// valid line (tests compare the two); it does not validate, so it is for trusted lines only.
    public mutating func deriveTrusted(_ line: UnsafeRawBufferPointer) -> Bool {
        let typeStart = Self.typeOpening.count
        guard line.hasBytes(Self.typeOpening), let typeEnd = Self.plainStringEnd(line, from: typeStart),
              line.hasBytes(Self.clientOpening, at: typeEnd + 1) else { return derive(line) }
        let clientStart = typeEnd + 1 + Self.clientOpening.count
        guard let clientEnd = Self.plainStringEnd(line, from: clientStart), clientEnd + 1 < line.count,
              line[clientEnd + 1] == UInt8(ascii: ",") || line[clientEnd + 1] == UInt8(ascii: "}") else { return derive(line) }
        return build(type: StringValue(range: typeStart..<typeEnd, escaped: false),
                     client: StringValue(range: clientStart..<clientEnd, escaped: false), from: line)
    }

    private static let typeOpening = Array(#"{"type":""#.utf8)
    private static let clientOpening = Array(#","client":""#.utf8)

    /// Where the string whose contents begin at `start` closes (its `"`), when nothing before holds
    /// an escape or a control byte; nil otherwise.
    private static func plainStringEnd(_ line: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < line.count {
            let byte = line[index]
            if byte == UInt8(ascii: "\"") { return index }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// Sets `topic` from a line's `type` and `client` values; false when `type` is empty.
    private mutating func build(type: StringValue, client: StringValue?, from line: UnsafeRawBufferPointer) -> Bool {
        topic.removeAll(keepingCapacity: true)
        append(type, from: line)
        guard !topic.isEmpty else { return false }
        if let client, !client.range.isEmpty {
            topic.append(UInt8(ascii: "/"))
            if types.isRouted(typeBytes: topic.dropLast()) {
                let partition = client.escaped
                    ? ClientPartition.of(JSONDecoding.unescape(line, client.range))
                    : ClientPartition.of(utf8: UnsafeRawBufferPointer(rebasing: line[client.range]))
                topic.append(contentsOf: ClientPartition.label(partition).utf8)
                topic.append(UInt8(ascii: "/"))
            }
            append(client, from: line)
        }
        return true
    }

    /// A string member's contents (between the quotes) and whether it holds escapes.
    struct StringValue {
        var range: Range<Int>
        var escaped: Bool
    }

    private mutating func append(_ value: StringValue, from line: UnsafeRawBufferPointer) {
        if value.escaped {
            topic.append(contentsOf: JSONDecoding.unescape(line, value.range).utf8)
        } else {
            topic.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[value.range]))
        }
    }

    /// Scans `{ ... }` (and only whitespace around it), returning the top-level `type` (nil when
    /// missing or not a string) and `client` (nil unless a string) members.
    private static func scanTopLevel(_ scanner: inout JSONScanner) -> (StringValue, StringValue?)? {
        scanner.skipWhitespace()
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        scanner.index += 1
        var type: StringValue?
        var client: StringValue?
        let keyBase = scanner.keys.open
        defer { scanner.keys.close(base: keyBase) }
        do {
            scanner.skipWhitespace()
            if scanner.peek() == UInt8(ascii: "}") {
                scanner.index += 1
            } else {
                members: while true {
                    scanner.skipWhitespace()
                    guard scanner.peek() == UInt8(ascii: "\"") else { return nil }
                    let keyStart = scanner.index + 1
                    let keyEscaped = try scanner.scanString()
                    let key = JSONKeySet.Key(range: keyStart..<(scanner.index - 1), escaped: keyEscaped, in: scanner.bytes)
                    if scanner.keys.insert(key, base: keyBase, bytes: scanner.bytes) != nil { return nil }
                    scanner.skipWhitespace()
                    guard scanner.peek() == UInt8(ascii: ":") else { return nil }
                    scanner.index += 1
                    scanner.skipWhitespace()
                    let name = Self.name(of: key, scanner.bytes)
                    if scanner.peek() == UInt8(ascii: "\"") {
                        let valueStart = scanner.index + 1
                        let escaped = try scanner.scanString()
                        let value = StringValue(range: valueStart..<(scanner.index - 1), escaped: escaped)
                        if name == .type { type = value } else if name == .client { client = value }
                    } else {
                        _ = try scanner.scanValue(depth: 1)
                    }
                    scanner.skipWhitespace()
                    guard let next = scanner.peek() else { return nil }
                    scanner.index += 1
                    if next == UInt8(ascii: "}") { break members }
                    guard next == UInt8(ascii: ",") else { return nil }
                }
            }
        } catch {
            return nil
        }
        scanner.skipWhitespace()
        guard scanner.atEnd, let type else { return nil }
        return (type, client)
    }

    private enum Name { case type, client, other }

    private static let typeTag = tag(of: "type")
    private static let clientTag = tag(of: "client")

    /// The tag `JSONKeySet.Key` gives an unescaped key of this text.
    private static func tag(of text: StaticString) -> UInt64 {
        let bytes = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        return JSONKeySet.Key(range: 0..<bytes.count, escaped: false, in: bytes).tag
    }

    private static func name(of key: JSONKeySet.Key, _ bytes: UnsafeRawBufferPointer) -> Name {
        if key.escaped {
            switch JSONDecoding.unescape(bytes, key.range) {
            case "type": return .type
            case "client": return .client
            default: return .other
            }
        }
        // The key's tag holds its length and first bytes (up to 7): "type" and "client" are
        // recognised by one integer compare each.
        if key.tag == Self.typeTag { return .type }
        if key.tag == Self.clientTag { return .client }
        return .other
    }
}
