/// Derives the bus topic of a line (see `Topic`) while validating the whole line as one JSON
/// object, without building a `JSONObject`: no copy of the line, no field list, and buffers that
/// are reused from line to line. This is the per-message work of `isobar plug` on its command's
/// output, so it must cost next to nothing beyond the scan itself.
///
/// The result is exactly that of parsing a `JSONObject` and `Topic.derive(from:)` (tests compare
/// the two on every corpus line).
public struct TopicDeriver {
    /// The topic of the last line `derive` accepted, as UTF-8 bytes.
    public private(set) var topic: [UInt8] = []
    /// Reused by every scan (a scanner's key stack allocates once, here, not per line).
    private var keys = JSONKeySet()

    public init() {
        topic.reserveCapacity(256)
    }

    /// Validates `line` and sets `topic`. False when the line is not a JSON object (strictly, as
    /// every stage reads it) with a non-empty string `type`; `topic` is then undefined.
    public mutating func derive(_ line: UnsafeRawBufferPointer) -> Bool {
        var scanner = JSONScanner(line)
        swap(&scanner.keys, &keys)
        defer { swap(&scanner.keys, &keys) }
        guard let (type, client) = Self.scanTopLevel(&scanner) else { return false }
        topic.removeAll(keepingCapacity: true)
        append(type, from: line)
        guard !topic.isEmpty else { return false }
        if let client, !client.range.isEmpty {
            topic.append(UInt8(ascii: "/"))
            if ClientPartition.isRouted(typeBytes: topic.dropLast()) {
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
