/// The client's one-pass reader of an `annotations` message's `upsert` items (`AnnotationSet.apply(storage:)`):
/// each item is validated and read where the line's parse reaches it, instead of validating the
/// whole line, then scanning every item again and looking its members up one by one.
///
/// It accepts only what the formatter writes (unescaped known keys, each once; a `coordinate` of
/// just `latitude` and `longitude`) and, of that, only items the general reader
/// (`AnnotationSet.apply(_:)` on a `JSONObject`) accepts, with the same result; it returns nil for
/// anything else, and the message then takes the general reader whole. `ClientOnePassTests`
/// compares the two on the formatter's own output and on lines broken on purpose.
enum AnnotationItemScan {
    /// The item keys the reader knows, in the order of their bits in `seen`.
    private enum Key: Int {
        case id, coordinate, title, subtitle, cluster, count, value, wind, stale, icon

        /// The key spelled by `length` bytes at `start`, or nil.
        static func find(_ start: UnsafeRawPointer, _ length: Int) -> Key? {
            func equal(_ name: StaticString) -> Bool { memcmp(start, name.utf8Start, length) == 0 }
            switch length {
            case 2: return equal("id") ? .id : nil
            case 4: return equal("wind") ? .wind : equal("icon") ? .icon : nil
            case 5: return equal("title") ? .title : equal("count") ? .count : equal("value") ? .value : equal("stale") ? .stale : nil
            case 7: return equal("cluster") ? .cluster : nil
            case 8: return equal("subtitle") ? .subtitle : nil
            case 10: return equal("coordinate") ? .coordinate : nil
            default: return nil
            }
        }
    }

    /// Validates and reads the object at the scanner's position, leaving the scanner just past it;
    /// nil for anything but a plain item the general reader accepts. With `keepsDetail` it also
    /// reads `subtitle`, `cluster` and the wind's `rotation`, as the general reader then does.
    static func item(_ scanner: inout JSONScanner, keepsDetail: Bool = false) -> AnnotationSet.Item? {
        guard scanner.peek() == UInt8(ascii: "{"), let base = scanner.bytes.baseAddress else { return nil }
        scanner.index += 1
        var seen: UInt16 = 0
        var id: String?
        var coordinate: Coordinate?
        var title = ""
        var count = 1
        var stale = false
        var subtitle = "", cluster = false, rotation: Double?
        while true {
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "\"") else { return nil }
            let keyStart = scanner.index + 1
            guard let escaped = try? scanner.scanString(), !escaped,
                  let key = Key.find(base + keyStart, scanner.index - 1 - keyStart), seen & (1 << key.rawValue) == 0 else { return nil }
            seen |= 1 << key.rawValue
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: ":") else { return nil }
            scanner.index += 1
            scanner.skipWhitespace()
            let start = scanner.index
            switch key {
            case .coordinate:
                guard let read = Self.coordinate(&scanner) else { return nil }
                coordinate = read
            case .subtitle where keepsDetail, .cluster where keepsDetail, .wind where keepsDetail:
                guard let kind = try? scanner.scanValue(depth: 3) else { return nil }
                let bytes = scanner.bytes
                switch (key, kind) {
                case (.subtitle, .string): subtitle = JSONDecoding.unescape(bytes, (start + 1)..<(scanner.index - 1))
                case (.cluster, .bool): cluster = bytes[start] == UInt8(ascii: "t")
                case (.subtitle, .null), (.cluster, .null): break
                case (.wind, .object):
                    // As the general reader: a `rotation` that is a number or null, else its error.
                    guard let wind = try? JSONObject(storage: Array(bytes[start..<scanner.index])) else { return nil }
                    do { rotation = try wind.optionalNumber("rotation") } catch { return nil }
                case (.wind, _): break
                default: return nil
                }
            case .subtitle, .cluster, .value, .wind, .icon:
                // Not kept by the set: only validated (any kind, as the general reader does).
                guard (try? scanner.scanValue(depth: 3)) != nil else { return nil }
            case .id, .title, .count, .stale:
                guard let first = scanner.peek(), first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
                      let kind = try? scanner.scanValue(depth: 3) else { return nil }
                let bytes = scanner.bytes
                let end = scanner.index
                /// A string's bytes between its quotes.
                var inner: Range<Int> { (start + 1)..<(end - 1) }
                switch (key, kind) {
                case (.id, .string):
                    // `requireName`: a non-empty string of at most 256 bytes.
                    let value = JSONDecoding.unescape(bytes, inner)
                    guard !value.isEmpty, value.utf8.count <= 256 else { return nil }
                    id = value
                case (.title, .string): title = JSONDecoding.unescape(bytes, inner)
                case (.title, .null), (.count, .null), (.stale, .null): break
                case (.count, .number):
                    // `optionalInt`: finite and whole, below 9e15 in magnitude.
                    let value = JSONDecoding.parseNumber(bytes, start..<scanner.index) + 0.0
                    guard value.isFinite, value == value.rounded(), abs(value) < 9e15 else { return nil }
                    count = Int(value)
                case (.stale, .bool): stale = bytes[start] == UInt8(ascii: "t")
                default: return nil
                }
            }
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        guard let id, let coordinate else { return nil }
        return AnnotationSet.Item(id: id, coordinate: coordinate, title: title, count: count, stale: stale,
                                  subtitle: subtitle, cluster: cluster, rotation: rotation)
    }

    /// `{"latitude":…,"longitude":…}` (in either order, each once, nothing else), checked as
    /// `Coordinate(from:)` checks it; nil for anything else.
    private static func coordinate(_ scanner: inout JSONScanner) -> Coordinate? {
        guard scanner.peek() == UInt8(ascii: "{"), let base = scanner.bytes.baseAddress else { return nil }
        scanner.index += 1
        var latitude: Double?
        var longitude: Double?
        while true {
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "\"") else { return nil }
            let keyStart = scanner.index + 1
            guard let escaped = try? scanner.scanString(), !escaped else { return nil }
            let length = scanner.index - 1 - keyStart
            let isLatitude = length == 8 && memcmp(base + keyStart, ("latitude" as StaticString).utf8Start, 8) == 0
            guard isLatitude || (length == 9 && memcmp(base + keyStart, ("longitude" as StaticString).utf8Start, 9) == 0),
                  (isLatitude ? latitude : longitude) == nil else { return nil }
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: ":") else { return nil }
            scanner.index += 1
            scanner.skipWhitespace()
            let start = scanner.index
            guard let first = scanner.peek(), first == UInt8(ascii: "-") || JSONScanner.isDigit(first),
                  (try? scanner.scanValue(depth: 4)) == .number else { return nil }
            let value = JSONDecoding.parseNumber(scanner.bytes, start..<scanner.index) + 0.0
            guard value.isFinite else { return nil }
            if isLatitude {
                guard (-90...90).contains(value) else { return nil }
                latitude = value
            } else {
                guard (-180...180).contains(value) else { return nil }
                longitude = value
            }
            scanner.skipWhitespace()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
