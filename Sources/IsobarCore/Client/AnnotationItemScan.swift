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
        var read = Reading()
        // The members the formatter writes first, in its order and spelling, are read without
        // looking their keys up (finding each member was most of an item's cost): each key is
        // compared with the one spelling expected there. At the first member not spelled so, the
        // scanner goes back to `mark` (past the last value read, or at the first member) and
        // ``members(_:_:keepsDetail:)`` reads the rest, or the whole item.
        var mark = scanner.index
        formatterOrder: do {
            guard let id = leadingString(&scanner, .id, comma: false), isName(id, scanner.bytes) else { break formatterOrder }
            read.id = id
            read.seen |= Key.id.bit
            mark = scanner.index
            guard nextKey(&scanner, .coordinate), let coordinate = compactCoordinate(&scanner) else { break formatterOrder }
            read.coordinate = coordinate
            read.seen |= Key.coordinate.bit
            mark = scanner.index
            guard let title = leadingString(&scanner, .title, comma: true) else { break formatterOrder }
            read.title = title
            read.seen |= Key.title.bit
            mark = scanner.index
            guard let subtitle = leadingString(&scanner, .subtitle, comma: true) else { break formatterOrder }
            // Kept only with detail (else only validated, as `members` validates it).
            if keepsDetail { read.subtitle = subtitle }
            read.seen |= Key.subtitle.bit
            mark = scanner.index
            guard nextKey(&scanner, .value), let value = scanner.peek(),
                  value == UInt8(ascii: "-") || JSONScanner.isDigit(value), number(&scanner) != nil else { break formatterOrder }
            read.seen |= Key.value.bit
            mark = scanner.index
        }
        scanner.index = mark
        // A station's item ends here; anything else takes the member loop.
        if read.seen != 0, scanner.peek() == UInt8(ascii: "}") {
            scanner.index += 1
        } else {
            guard members(&scanner, &read, keepsDetail: keepsDetail) else { return nil }
        }
        guard let id = read.id, let coordinate = read.coordinate else { return nil }
        return ScannedItem(id: id, coordinate: coordinate, title: read.title, count: read.count, stale: read.stale,
                           subtitle: read.subtitle, cluster: read.cluster, rotation: read.rotation)
    }

    /// What ``item(_:keepsDetail:)`` has read of an item so far, and which keys (`seen`, their
    /// ``Key/bit``s: each may come once).
    private struct Reading {
        var seen: UInt16 = 0
        var id: ScannedItem.Text?
        var coordinate: Coordinate?
        var title = ScannedItem.Text.empty
        var count = 1
        var stale = false
        var subtitle = ScannedItem.Text.empty, cluster = false, rotation: Double?
    }

    /// Reads the item's members member by member, whatever their order and spelling, into `read`:
    /// from just past the last value read when `read` has any key (a `,` or `}` next), else from
    /// the first member; leaves the scanner just past the item's `}`. False for anything but
    /// members the general reader accepts. Out of line: the formatter's plain, non-stale station
    /// items with a `value` (temperature and precipitation stations) do not come here (clusters,
    /// stale and wind stations do, for their members after `value`), and kept inline the loop made
    /// ``item(_:keepsDetail:)`` too large for the shortcut's small helpers to be inlined.
    @inline(never)
    private static func members(_ scanner: inout JSONScanner, _ read: inout Reading, keepsDetail: Bool) -> Bool {
        // True when the scanner is just past a member's value (a `,` or `}` comes next).
        var afterValue = read.seen != 0
        while true {
            if afterValue {
                scanner.skipWhitespaceIfAny()
                guard let next = scanner.peek() else { return false }
                scanner.index += 1
                if next == UInt8(ascii: "}") { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
            afterValue = true
            guard let key = Key.member(&scanner), read.seen & key.bit == 0 else { return false }
            read.seen |= key.bit
            let start = scanner.index
            switch key {
            case .coordinate:
                guard let coordinate = Self.coordinate(&scanner) else { return false }
                read.coordinate = coordinate
            case .subtitle where keepsDetail:
                guard let first = scanner.peek() else { return false }
                if first == UInt8(ascii: "n") {
                    guard (try? scanner.scanValue(depth: 3)) == .null else { return false }
                    read.subtitle = .empty
                } else {
                    guard first == UInt8(ascii: "\""), let escaped = try? scanner.scanString() else { return false }
                    read.subtitle = ScannedItem.Text(range: (start + 1)..<(scanner.index - 1), escaped: escaped)
                }
            case .cluster where keepsDetail, .wind where keepsDetail:
                guard let kind = try? scanner.scanValue(depth: 3) else { return false }
                let bytes = scanner.bytes
                switch (key, kind) {
                case (.cluster, .bool): read.cluster = bytes[start] == UInt8(ascii: "t")
                case (.cluster, .null): break
                case (.wind, .object):
                    // As the general reader: a `rotation` that is a number or null, else its error.
                    guard let wind = try? JSONObject(storage: Array(bytes[start..<scanner.index])) else { return false }
                    do { read.rotation = try wind.optionalNumber("rotation") } catch { return false }
                case (.wind, _): break
                default: return false
                }
            case .subtitle, .cluster, .value, .wind, .icon:
                // Not kept by the set: only validated (any kind, as the general reader does).
                guard skipValue(&scanner) else { return false }
            case .id, .title:
                guard let first = scanner.peek() else { return false }
                if first == UInt8(ascii: "n"), key == .title {
                    guard (try? scanner.scanValue(depth: 3)) == .null else { return false }
                    read.title = .empty
                    break
                }
                guard first == UInt8(ascii: "\""), let escaped = try? scanner.scanString() else { return false }
                let text = ScannedItem.Text(range: (start + 1)..<(scanner.index - 1), escaped: escaped)
                if key == .title {
                    read.title = text
                    break
                }
                guard isName(text, scanner.bytes) else { return false }
                read.id = text
            case .count, .stale:
                guard let first = scanner.peek(), first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
                      let kind = try? scanner.scanValue(depth: 3) else { return false }
                let bytes = scanner.bytes
                switch (key, kind) {
                case (.count, .null), (.stale, .null): break
                case (.count, .number):
                    // `optionalInt`: finite and whole, below 9e15 in magnitude.
                    let value = JSONDecoding.parseNumber(bytes, start..<scanner.index) + 0.0
                    guard value.isFinite, value == value.rounded(), abs(value) < 9e15 else { return false }
                    read.count = Int(value)
                case (.stale, .bool): read.stale = bytes[start] == UInt8(ascii: "t")
                default: return false
                }
            }
        }
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

    /// Whether `text` (an `id`'s string in `bytes`) is a name as `requireName` takes it: non-empty,
    /// at most 256 bytes once unescaped.
    @inline(__always)
    private static func isName(_ text: ScannedItem.Text, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let length = text.escaped ? JSONDecoding.unescape(bytes, text.range).utf8.count : text.range.count
        return length > 0 && length <= 256
    }

    /// Whether a comma and `key` spelled `"name":` are exactly at the scanner's position (the
    /// formatter's spelling between two members), with at least 16 bytes after the comma; if so
    /// the scanner is moved to the member's value, else left where it was. The formatter's order
    /// is known, so the key expected there is compared with that one spelling alone (its words
    /// are constants once inlined).
    @inline(__always)
    private static func nextKey(_ scanner: inout JSONScanner, _ key: Key) -> Bool {
        let bytes = scanner.bytes
        let start = scanner.index + 1
        guard start >= 1, start + 16 <= bytes.count, bytes[start - 1] == UInt8(ascii: ",") else { return false }
        let (low, high, length) = key.spelling
        guard spells(bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self),
                     bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self), low, high, length) else { return false }
        scanner.index = start + length
        return true
    }

    /// The string member `key` spelled as the formatter spells it (`"name":"…"`, after a comma
    /// when `comma`), at the scanner's position: its text, read by ``string(_:)``; nil for
    /// anything else (another key or spelling, another kind, an invalid string), the scanner then
    /// anywhere (the caller puts it back).
    @inline(__always)
    private static func leadingString(_ scanner: inout JSONScanner, _ key: Key, comma: Bool) -> ScannedItem.Text? {
        let bytes = scanner.bytes
        let start = scanner.index + (comma ? 1 : 0)
        let (low, high, length) = key.spelling
        guard start >= 1, start + 16 <= bytes.count, !comma || bytes[start - 1] == UInt8(ascii: ","),
              spells(bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self),
                     bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self), low, high, length) else { return nil }
        let quote = start + length
        guard bytes[quote] == UInt8(ascii: "\"") else { return nil }
        scanner.index = quote
        return string(&scanner)
    }

    /// The string at the scanner's position (its opening quote), validated as `scanString`
    /// validates it, the scanner left past its closing quote; nil when it is no valid string.
    /// A string of plain printable ASCII closed within the eight bytes after its opening quote
    /// (most ids) is taken from one word, any other by `scanString`.
    @inline(__always)
    static func string(_ scanner: inout JSONScanner) -> ScannedItem.Text? {
        let bytes = scanner.bytes
        let quote = scanner.index
        if quote >= 0, quote + 9 <= bytes.count {
            // The lowest flagged byte is exactly the first special one (`specialBytes`); when it
            // is a quote, every byte before it is plain printable ASCII: the whole string.
            let special = JSONScanner.specialBytes(bytes.loadUnaligned(fromByteOffset: quote + 1, as: UInt64.self))
            if special != 0 {
                let end = quote + 1 + (special.trailingZeroBitCount >> 3)
                if bytes[end] == UInt8(ascii: "\"") {
                    scanner.index = end + 1
                    return ScannedItem.Text(range: (quote + 1)..<end, escaped: false)
                }
            }
        }
        guard let escaped = try? scanner.scanString() else { return nil }
        return ScannedItem.Text(range: (quote + 1)..<(scanner.index - 1), escaped: escaped)
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
