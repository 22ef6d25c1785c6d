#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The filter's reader of plain `station` lines, in place: one pass over the line's bytes with the
/// same validating scanner as `JSONObject`, straight into a `Station`, with no copy of the line, no
/// member table, no `String` for `type`, `day` or the snapshot id, and one shared `String` per
/// recently seen name (``NameCache``). A snapshot load is a million of these lines, and the
/// general path (`JSONObject` + `StationMessage(from:)`) spent most of its time allocating and
/// freeing what it threw away.
///
/// It reads only a strict subset of what the general path accepts, and gives for it exactly what
/// the general path gives: a line of the twelve members `StationMessage.write` writes (any order,
/// `name` and the four values optional, values may be `null`), no escape in any string, an ASCII
/// snapshot id, every value valid and in range. Anything else (another type, a detail member such
/// as `observedAt`, an unknown member, an escape, a bad value) returns nil, and the caller hands
/// the line to the general path, which reads it or writes the error it always wrote. The
/// exactness tests (`StationLineReaderTests`) compare the two on generated and mutated lines.
struct StationLineReader {
    /// What a plain station line holds; `snapshot` is where the snapshot id's bytes lie in the line.
    struct Line {
        var day: Day
        var snapshot: Range<Int>
        var seq: Int
        var station: Station
    }

    private var names = NameCache()

    /// The members this reader knows, by bit.
    private enum Member: Int {
        case type, day, snapshot, seq, id, name, latitude, longitude, temperature, windSpeed, windDirection, precipitation
    }

    /// Reads `bytes` (one line, without its newline) as a plain station line with `seq` below
    /// `maxSeq`, or returns nil for the general path.
    mutating func read(_ bytes: UnsafeRawBufferPointer, maxSeq: Int) -> Line? {
        guard let base = bytes.baseAddress else { return nil }
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespaceIfAny()
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        scanner.index += 1
        var seen = 0
        // Each member's value range; a string's without its quotes. Kinds: only what is accepted.
        var ranges = (type: 0..<0, day: 0..<0, snapshot: 0..<0, seq: 0..<0, id: 0..<0, name: 0..<0)
        var numbers = (latitude: 0..<0, longitude: 0..<0, temperature: 0..<0, windSpeed: 0..<0, windDirection: 0..<0, precipitation: 0..<0)
        var nameIsNull = false
        var nulls = 0  // bits of the four values that are null
        scanner.skipWhitespaceIfAny()
        guard scanner.peek() != UInt8(ascii: "}") else { return nil }  // {} is not a station
        while true {
            scanner.skipWhitespaceIfAny()
            guard scanner.peek() == UInt8(ascii: "\"") else { return nil }
            let keyStart = scanner.index + 1
            guard let keyEscaped = try? scanner.scanString(), !keyEscaped,
                  let member = Self.member(base + keyStart, count: scanner.index - 1 - keyStart) else { return nil }
            let bit = 1 << member.rawValue
            guard seen & bit == 0 else { return nil }  // a duplicate: the general path refuses it
            seen |= bit
            scanner.skipWhitespaceIfAny()
            guard scanner.peek() == UInt8(ascii: ":") else { return nil }
            scanner.index += 1
            scanner.skipWhitespaceIfAny()
            let start = scanner.index
            let kind: JSONKind
            if scanner.peek() == UInt8(ascii: "\"") {
                guard let escaped = try? scanner.scanString(), !escaped else { return nil }
                kind = .string
            } else {
                guard let scanned = try? scanner.scanValue(depth: 1) else { return nil }
                kind = scanned
            }
            let whole = start..<scanner.index
            let inner = kind == .string ? (start + 1)..<(scanner.index - 1) : whole  // a string's without its quotes
            switch member {
            case .type, .day, .snapshot, .id:
                guard kind == .string else { return nil }
                switch member {
                case .type:
                    // Another type is declined at once: every writer puts `type` first, so a
                    // viewport (the filter's most frequent line) costs this reader one member.
                    guard Self.equal(bytes, inner, "station") else { return nil }
                    ranges.type = inner
                case .day: ranges.day = inner
                case .snapshot: ranges.snapshot = inner
                default: ranges.id = inner
                }
            case .name:
                if kind == .null { nameIsNull = true } else {
                    guard kind == .string else { return nil }
                    ranges.name = inner
                }
            case .seq, .latitude, .longitude:
                guard kind == .number else { return nil }
                switch member {
                case .seq: ranges.seq = whole
                case .latitude: numbers.latitude = whole
                default: numbers.longitude = whole
                }
            case .temperature, .windSpeed, .windDirection, .precipitation:
                if kind == .null { nulls |= bit } else {
                    guard kind == .number else { return nil }
                    switch member {
                    case .temperature: numbers.temperature = whole
                    case .windSpeed: numbers.windSpeed = whole
                    case .windDirection: numbers.windDirection = whole
                    default: numbers.precipitation = whole
                    }
                }
            }
            scanner.skipWhitespaceIfAny()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        scanner.skipWhitespaceIfAny()
        guard scanner.atEnd else { return nil }
        let required = 1 << Member.type.rawValue | 1 << Member.day.rawValue | 1 << Member.snapshot.rawValue | 1 << Member.seq.rawValue
            | 1 << Member.id.rawValue | 1 << Member.latitude.rawValue | 1 << Member.longitude.rawValue
        guard seen & required == required else { return nil }

        // What `FilterEngine.handle`, `StationMessage(from:)` and `Station(from:)` read, checked the
        // same way (`type` was when it was read).
        let day: Day
        if Self.equal(bytes, ranges.day, "today") { day = .today } else if Self.equal(bytes, ranges.day, "tomorrow") { day = .tomorrow } else { return nil }
        // The snapshot id is compared as bytes later: ASCII, so that is what `==` would say too.
        guard !ranges.snapshot.isEmpty, ranges.snapshot.count <= 256,
              Self.isASCII(UnsafeRawBufferPointer(rebasing: bytes[ranges.snapshot])) else { return nil }
        guard let seqValue = Self.number(bytes, ranges.seq), seqValue == seqValue.rounded(), abs(seqValue) < 9e15 else { return nil }
        let seq = Int(seqValue)
        guard seq >= 0, seq < maxSeq else { return nil }
        guard !ranges.id.isEmpty, ranges.id.count <= 256 else { return nil }
        guard let latitude = Self.number(bytes, numbers.latitude), let longitude = Self.number(bytes, numbers.longitude),
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        // A value that is absent or null is nil; one that is present must be a finite number.
        var invalid = false
        func value(_ member: Member, _ range: Range<Int>) -> Double? {
            let bit = 1 << member.rawValue
            guard seen & bit != 0, nulls & bit == 0 else { return nil }
            guard let value = Self.number(bytes, range) else { invalid = true; return nil }
            return value
        }
        let temperature = value(.temperature, numbers.temperature), windSpeed = value(.windSpeed, numbers.windSpeed)
        let windDirection = value(.windDirection, numbers.windDirection), precipitation = value(.precipitation, numbers.precipitation)
        guard !invalid else { return nil }
        let id = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[ranges.id]), as: UTF8.self)
        let name = seen & (1 << Member.name.rawValue) == 0 || nameIsNull
            ? "" : names.string(UnsafeRawBufferPointer(rebasing: bytes[ranges.name]))
        let station = Station(id: id, name: name, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                              temperature: temperature, windSpeed: windSpeed, windDirection: windDirection, precipitation: precipitation)
        guard (try? station.checkRanges()) != nil else { return nil }
        return Line(day: day, snapshot: ranges.snapshot, seq: seq, station: station)
    }

    /// A finite number (what `JSONObject.requireNumber` gives: -0 read as 0), or nil.
    @inline(__always) private static func number(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Double? {
        let value = JSONDecoding.parseNumber(bytes, range)
        return value.isFinite ? value + 0.0 : nil
    }

    @inline(__always) private static func equal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: StaticString) -> Bool {
        range.count == text.utf8CodeUnitCount && memcmp(bytes.baseAddress! + range.lowerBound, text.utf8Start, range.count) == 0
    }

    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { $0 < 0x80 }
    }

    /// Which known member the key bytes name (nil: another key).
    private static func member(_ key: UnsafeRawPointer, count: Int) -> Member? {
        @inline(__always) func isKey(_ text: StaticString) -> Bool {
            count == text.utf8CodeUnitCount && memcmp(key, text.utf8Start, count) == 0
        }
        switch count {
        case 2: return isKey("id") ? .id : nil
        case 3: return isKey("day") ? .day : isKey("seq") ? .seq : nil
        case 4: return isKey("type") ? .type : isKey("name") ? .name : nil
        case 8: return isKey("snapshot") ? .snapshot : isKey("latitude") ? .latitude : nil
        case 9: return isKey("longitude") ? .longitude : isKey("windSpeed") ? .windSpeed : nil
        case 11: return isKey("temperature") ? .temperature : nil
        case 13: return isKey("windDirection") ? .windDirection : isKey("precipitation") ? .precipitation : nil
        default: return nil
        }
    }
}
