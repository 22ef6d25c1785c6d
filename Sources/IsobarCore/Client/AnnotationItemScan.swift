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
    /// Validates and reads the object at the scanner's position, leaving the scanner just past it;
    /// nil for anything but a plain item the general reader accepts. With `keepsDetail` it also
    /// reads `subtitle`, `cluster` and the wind's `rotation`, as the general reader then does.
    /// The item's texts stay where they are in the line (``ScannedItem``): the set makes them
    /// `String`s once the whole line has been read.
    static func item(_ scanner: inout JSONScanner, keepsDetail: Bool = false) -> ScannedItem? {
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        scanner.index += 1
        var seen: UInt16 = 0
        var id: ScannedItem.Text?
        var coordinate: Coordinate?
        var title = ScannedItem.Text.empty
        var count = 1
        var stale = false
        var subtitle = ScannedItem.Text.empty, cluster = false, rotation: Double?
        while true {
            guard let key = Key.member(&scanner), seen & (1 << key.rawValue) == 0 else { return nil }
            seen |= 1 << key.rawValue
            let start = scanner.index
            switch key {
            case .coordinate:
                guard let read = Self.coordinate(&scanner) else { return nil }
                coordinate = read
            case .subtitle where keepsDetail:
                guard let first = scanner.peek() else { return nil }
                if first == UInt8(ascii: "n") {
                    guard (try? scanner.scanValue(depth: 3)) == .null else { return nil }
                    subtitle = .empty
                } else {
                    guard first == UInt8(ascii: "\""), let escaped = try? scanner.scanString() else { return nil }
                    subtitle = ScannedItem.Text(range: (start + 1)..<(scanner.index - 1), escaped: escaped)
                }
            case .cluster where keepsDetail, .wind where keepsDetail:
                guard let kind = try? scanner.scanValue(depth: 3) else { return nil }
                let bytes = scanner.bytes
                switch (key, kind) {
                case (.cluster, .bool): cluster = bytes[start] == UInt8(ascii: "t")
                case (.cluster, .null): break
                case (.wind, .object):
                    // As the general reader: a `rotation` that is a number or null, else its error.
                    guard let wind = try? JSONObject(storage: Array(bytes[start..<scanner.index])) else { return nil }
                    do { rotation = try wind.optionalNumber("rotation") } catch { return nil }
                case (.wind, _): break
                default: return nil
                }
            case .subtitle, .cluster, .value, .wind, .icon:
                // Not kept by the set: only validated (any kind, as the general reader does).
                guard skipValue(&scanner) else { return nil }
            case .id, .title:
                guard let first = scanner.peek() else { return nil }
                if first == UInt8(ascii: "n"), key == .title {
                    guard (try? scanner.scanValue(depth: 3)) == .null else { return nil }
                    title = .empty
                    break
                }
                guard first == UInt8(ascii: "\""), let escaped = try? scanner.scanString() else { return nil }
                let text = ScannedItem.Text(range: (start + 1)..<(scanner.index - 1), escaped: escaped)
                if key == .title {
                    title = text
                    break
                }
                // `requireName`: a non-empty string of at most 256 bytes (once unescaped).
                let length = escaped ? JSONDecoding.unescape(scanner.bytes, text.range).utf8.count : text.range.count
                guard length > 0, length <= 256 else { return nil }
                id = text
            case .count, .stale:
                guard let first = scanner.peek(), first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
                      let kind = try? scanner.scanValue(depth: 3) else { return nil }
                let bytes = scanner.bytes
                switch (key, kind) {
                case (.count, .null), (.stale, .null): break
                case (.count, .number):
                    // `optionalInt`: finite and whole, below 9e15 in magnitude.
                    let value = JSONDecoding.parseNumber(bytes, start..<scanner.index) + 0.0
                    guard value.isFinite, value == value.rounded(), abs(value) < 9e15 else { return nil }
                    count = Int(value)
                case (.stale, .bool): stale = bytes[start] == UInt8(ascii: "t")
                default: return nil
                }
            }
            scanner.skipWhitespaceIfAny()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        guard let id, let coordinate else { return nil }
        return ScannedItem(id: id, coordinate: coordinate, title: title, count: count, stale: stale,
                           subtitle: subtitle, cluster: cluster, rotation: rotation)
    }

    /// Validates the value at the scanner's position as `scanValue` does (any kind), leaving the
    /// scanner just past it; false when it is no valid value. A string or a number (what the
    /// formatter writes for the members the set does not keep: `subtitle`, `value`) is checked
    /// without `scanValue`'s dispatch, a number by ``number(_:)`` (which accepts only what
    /// `scanValue` accepts, and ends where it ends); any other value, and a number ``number(_:)``
    /// refuses, takes `scanValue`.
    @inline(__always)
    static func skipValue(_ scanner: inout JSONScanner) -> Bool {
        let start = scanner.index
        guard let first = scanner.peek() else { return false }
        if first == UInt8(ascii: "\"") { return (try? scanner.scanString()) != nil }
        if first == UInt8(ascii: "-") || JSONScanner.isDigit(first) {
            if number(&scanner) != nil { return true }
            scanner.index = start
        }
        return (try? scanner.scanValue(depth: 3)) != nil
    }

    /// The bytes of the key at the scanner's position, up to the first quote within 16 bytes,
    /// leaving the scanner just past that quote; nil when there is no such quote. The bytes are
    /// neither validated nor unescaped: the caller must compare them with a known name (ASCII
    /// letters), and only equal bytes make a valid, unescaped key that is exactly that name (every
    /// key the one-pass readers know is such a name; any other key makes them decline).
    @inline(__always)
    static func plainKey(_ scanner: inout JSONScanner) -> Range<Int>? {
        let bytes = scanner.bytes
        guard scanner.index < bytes.count, bytes[scanner.index] == UInt8(ascii: "\"") else { return nil }
        let start = scanner.index + 1
        var length: Int
        if start + 16 <= bytes.count {
            // Two words at most; the lowest flagged byte is exactly the first quote.
            var quotes = JSONScanner.matches(bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self), 0x22)
            length = 0
            if quotes == 0 {
                quotes = JSONScanner.matches(bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self), 0x22)
                guard quotes != 0 else { return nil }
                length = 8
            }
            length += quotes.trailingZeroBitCount >> 3
        } else {
            length = 0
            while start + length < bytes.count && bytes[start + length] != UInt8(ascii: "\"") {
                length += 1
                if length > 16 { return nil }
            }
            guard start + length < bytes.count else { return nil }
        }
        scanner.index = start + length + 1
        return start..<(start + length)
    }

    /// The name of the member at the scanner's position (whitespace, then a plain key as
    /// ``plainKey(_:)`` takes it), leaving the scanner at its value (past the colon and any
    /// whitespace); nil when there is no such member.
    @inline(__always)
    static func memberName(_ scanner: inout JSONScanner) -> Range<Int>? {
        scanner.skipWhitespaceIfAny()
        guard let name = plainKey(&scanner) else { return nil }
        scanner.skipWhitespaceIfAny()
        guard scanner.peek() == UInt8(ascii: ":") else { return nil }
        scanner.index += 1
        scanner.skipWhitespaceIfAny()
        return name
    }

    /// `{"latitude":…,"longitude":…}` (in either order, each once, nothing else), checked as
    /// `Coordinate(from:)` checks it; nil for anything else.
    private static func coordinate(_ scanner: inout JSONScanner) -> Coordinate? {
        let start = scanner.index
        if let read = compactCoordinate(&scanner) { return read }
        scanner.index = start
        guard scanner.peek() == UInt8(ascii: "{"), let base = scanner.bytes.baseAddress else { return nil }
        scanner.index += 1
        var latitude: Double?
        var longitude: Double?
        while true {
            guard let isLatitude = coordinateMember(&scanner, base), (isLatitude ? latitude : longitude) == nil else { return nil }
            guard let value = number(&scanner) else { return nil }
            if isLatitude {
                guard (-90...90).contains(value) else { return nil }
                latitude = value
            } else {
                guard (-180...180).contains(value) else { return nil }
                longitude = value
            }
            scanner.skipWhitespaceIfAny()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// The coordinate exactly as the formatter spells it, `{"latitude":…,"longitude":…}` with
    /// nothing between the tokens, read with two word comparisons instead of a walk member by
    /// member; nil for any other spelling or a value ``coordinate(_:)`` refuses (the caller then
    /// reads the coordinate again from its start that way, which takes every spelling and gives
    /// the same result or refusal).
    @inline(__always)
    private static func compactCoordinate(_ scanner: inout JSONScanner) -> Coordinate? {
        let bytes = scanner.bytes
        let start = scanner.index
        // `{` and `"latitude":` (12 bytes), then at least a digit and `,"longitude":` (13 bytes).
        guard start >= 0, start + 32 <= bytes.count, bytes[start] == UInt8(ascii: "{") else { return nil }
        let (low, high, length) = latitudeSpelling
        guard spells(bytes.loadUnaligned(fromByteOffset: start + 1, as: UInt64.self),
                     bytes.loadUnaligned(fromByteOffset: start + 9, as: UInt64.self), low, high, length) else { return nil }
        scanner.index = start + 1 + length
        guard let latitude = number(&scanner), (-90...90).contains(latitude) else { return nil }
        let after = scanner.index
        let (otherLow, otherHigh, otherLength) = longitudeSpelling
        guard after + 17 <= bytes.count, bytes[after] == UInt8(ascii: ","),
              spells(bytes.loadUnaligned(fromByteOffset: after + 1, as: UInt64.self),
                     bytes.loadUnaligned(fromByteOffset: after + 9, as: UInt64.self), otherLow, otherHigh, otherLength) else { return nil }
        scanner.index = after + 1 + otherLength
        guard let longitude = number(&scanner), (-180...180).contains(longitude),
              scanner.index < bytes.count, bytes[scanner.index] == UInt8(ascii: "}") else { return nil }
        scanner.index += 1
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// Whether the coordinate's member at the scanner's position is `latitude` (true) or
    /// `longitude` (false), leaving the scanner at its value; nil for any other member. The
    /// formatter's spelling is compared as words (as ``Key/spelled(_:)``), else the general way.
    @inline(__always)
    private static func coordinateMember(_ scanner: inout JSONScanner, _ base: UnsafeRawPointer) -> Bool? {
        let bytes = scanner.bytes
        let start = scanner.index
        if start >= 0, start + 16 <= bytes.count {
            let first = bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)
            let second = bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)
            let (low, high, length) = latitudeSpelling
            let isLatitude = spells(first, second, low, high, length)
            let (otherLow, otherHigh, otherLength) = longitudeSpelling
            if isLatitude || spells(first, second, otherLow, otherHigh, otherLength) {
                scanner.index = start + (isLatitude ? length : otherLength)
                scanner.skipWhitespaceIfAny()
                return isLatitude
            }
        }
        guard let name = memberName(&scanner) else { return nil }
        if name.count == 8 && memcmp(base + name.lowerBound, ("latitude" as StaticString).utf8Start, 8) == 0 { return true }
        if name.count == 9 && memcmp(base + name.lowerBound, ("longitude" as StaticString).utf8Start, 9) == 0 { return false }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
