/// What the formatter reads from one item of a `visible` message's `upsert`, checked: the input of
/// one annotation.
///
/// Two readers make it. `init(item:)` reads a parsed `JSONObject` through the typed accessors (every
/// input, with their error messages). `scan(_:)` reads the item in the same pass that
/// validates it, for the formatter's fast path: it accepts only what the filter writes (unescaped
/// known keys, each once, scalar values) and every value the other reader would accept, and returns
/// nil for anything else, which then takes the first reader with the whole line. Both give equal
/// inputs for an item both accept (`FormatFastPathTests` compares them line by line).
struct AnnotationInput {
    /// Where the id's quoted bytes lie in the document when it is a plain string (copied to the
    /// output as is); else nil and `id`.
    var plainID: Range<Int>?
    var id: String
    var coordinate: Coordinate
    /// Where the numbers' text lies in the document (copied to the output when already canonical).
    var latitudeText: Range<Int>
    var longitudeText: Range<Int>
    var temperature: Double?
    var windSpeed: Double?
    var windDirection: Double?
    var precipitation: Double?
    /// The station's icon, or a cluster's most common one (the `conditions` field's title).
    var icon: WeatherIcon?
    /// A cluster's station count; nil for a station.
    var clusterCount: Int?
    /// Where a station's name lies as quoted bytes when plain; else nil and `name` (empty when absent).
    var plainName: Range<Int>?
    var name: String
    var stale: Bool

    /// Reads a parsed item; throws the message a client sees for the first field that is wrong
    /// (in this order: cluster, id, coordinate, the four values, icon, count or name, stale).
    init(item: JSONObject) throws(MessageError) {
        let isCluster = try item.optionalBool("cluster") ?? false
        plainID = Self.plainString(item, item.field("id"), maxLength: 256)
        id = plainID == nil ? try item.requireName("id") : ""
        coordinate = try Coordinate(from: item)
        latitudeText = item.field("latitude")?.valueRange ?? 0..<0
        longitudeText = item.field("longitude")?.valueRange ?? 0..<0
        temperature = try item.optionalNumber("temperature")
        windSpeed = try item.optionalNumber("windSpeed")
        windDirection = try item.optionalNumber("windDirection")
        precipitation = try item.optionalNumber("precipitation")
        icon = try item.optionalEnum("icon", WeatherIcon.self)
        if isCluster {
            guard let count = try item.optionalInt("count"), count > 0 else { throw MessageError("a cluster needs a positive \"count\"") }
            clusterCount = count
            plainName = nil
            name = ""
        } else {
            clusterCount = nil
            plainName = Self.plainString(item, item.field("name"), maxLength: .max)
            name = plainName == nil ? try item.optionalString("name") ?? "" : ""
        }
        stale = try item.optionalBool("stale") == true
    }

    private init(plainID: Range<Int>, coordinate: Coordinate, latitudeText: Range<Int>, longitudeText: Range<Int>,
                 temperature: Double?, windSpeed: Double?, windDirection: Double?, precipitation: Double?,
                 icon: WeatherIcon?, clusterCount: Int?, plainName: Range<Int>?, name: String, stale: Bool) {
        self.plainID = plainID
        id = ""
        self.coordinate = coordinate
        self.latitudeText = latitudeText
        self.longitudeText = longitudeText
        self.temperature = temperature
        self.windSpeed = windSpeed
        self.windDirection = windDirection
        self.precipitation = precipitation
        self.icon = icon
        self.clusterCount = clusterCount
        self.plainName = plainName
        self.name = name
        self.stale = stale
    }

    /// A non-empty string member without escapes, as the range of its quoted bytes, to be copied to
    /// the output as is (it was validated with the line, and needs no escaping); nil for anything
    /// else, which takes the decoding path and its checks and messages.
    static func plainString(_ bytes: UnsafeRawBufferPointer, _ field: JSONField?, maxLength: Int) -> Range<Int>? {
        guard let field, field.kind == .string, field.valueRange.count > 2, field.valueRange.count - 2 <= maxLength else { return nil }
        // (DEL is written escaped by JSONWriter: such a string takes the writer's path too.)
        return bytes.hasBackslashOrDEL(in: field.valueRange) ? nil : field.valueRange
    }

    static func plainString(_ item: JSONObject, _ field: JSONField?, maxLength: Int) -> Range<Int>? {
        item.storage.withUnsafeBytes { plainString($0, field, maxLength: maxLength) }
    }

    // MARK: - One pass

    /// The item keys the formatter knows, in the order of `scan`'s slots.
    private enum Key: Int, CaseIterable {
        case id, name, latitude, longitude, temperature, windSpeed, windDirection, precipitation, cluster, count, stale, icon

        /// The key spelled by `length` bytes at `start`, or nil.
        static func find(_ start: UnsafeRawPointer, _ length: Int) -> Key? {
            func equal(_ name: StaticString) -> Bool { memcmp(start, name.utf8Start, length) == 0 }
            switch length {
            case 2: return equal("id") ? .id : nil
            case 4: return equal("name") ? .name : equal("icon") ? .icon : nil
            case 5: return equal("count") ? .count : equal("stale") ? .stale : nil
            case 7: return equal("cluster") ? .cluster : nil
            case 8: return equal("latitude") ? .latitude : nil
            case 9: return equal("longitude") ? .longitude : equal("windSpeed") ? .windSpeed : nil
            case 11: return equal("temperature") ? .temperature : nil
            case 13: return equal("windDirection") ? .windDirection : equal("precipitation") ? .precipitation : nil
            default: return nil
            }
        }
    }

    /// One member found by `scan`: where its value lies and its kind (`end` 0: absent).
    private struct Slot {
        var start: Int32 = 0
        var end: Int32 = 0
        var kind: JSONKind = .null

        var field: JSONField? {
            end == 0 ? nil : JSONField(keyRange: 0..<0, keyEscaped: false, valueRange: Int(start)..<Int(end), kind: kind)
        }
    }

    /// Validates and reads the object at the scanner's position (a `{`), leaving the scanner just
    /// past it; nil when the item is anything but plain (see the type's comment), with the scanner
    /// anywhere.
    static func scan(_ scanner: inout JSONScanner) -> AnnotationInput? {
        guard scanner.peek() == UInt8(ascii: "{"), let base = scanner.bytes.baseAddress, scanner.bytes.count < Int(Int32.max) else { return nil }
        scanner.index += 1
        var fields = InlineArray<12, Slot>(repeating: Slot())  // one slot per `Key`, on the stack
        scanner.skipWhitespaceIfAny()
        guard scanner.peek() != UInt8(ascii: "}") else { return nil }
        while true {
            scanner.skipWhitespaceIfAny()
            guard scanner.peek() == UInt8(ascii: "\"") else { return nil }
            let keyStart = scanner.index + 1
            guard let escaped = try? scanner.scanString(), !escaped,
                  let key = Key.find(base + keyStart, scanner.index - 1 - keyStart), fields[key.rawValue].end == 0 else { return nil }
            scanner.skipWhitespaceIfAny()
            guard scanner.peek() == UInt8(ascii: ":") else { return nil }
            scanner.index += 1
            scanner.skipWhitespaceIfAny()
            guard let first = scanner.peek(), first != UInt8(ascii: "{"), first != UInt8(ascii: "[") else { return nil }
            let start = scanner.index
            guard let kind = try? scanner.scanValue(depth: 2) else { return nil }
            fields[key.rawValue] = Slot(start: Int32(start), end: Int32(scanner.index), kind: kind)
            scanner.skipWhitespaceIfAny()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        return read(fields, scanner.bytes)
    }

    /// The checks of `init(item:)` on the slots `scan` filled; nil where that init would throw or
    /// would decode a string (which it then does, with the whole line).
    @inline(__always)
    private static func read(_ fields: borrowing InlineArray<12, Slot>, _ bytes: UnsafeRawBufferPointer) -> AnnotationInput? {
        /// nil: absent or null (`.some(nil)`); a finite number; or not acceptable (nil).
        func number(_ key: Key) -> Double?? {
            guard let field = fields[key.rawValue].field, field.kind != .null else { return .some(nil) }
            guard field.kind == .number else { return nil }
            let value = JSONDecoding.parseNumber(bytes, field.valueRange)
            guard value.isFinite else { return nil }
            return value + 0.0  // -0 becomes 0
        }
        func bool(_ key: Key) -> Bool?? {
            guard let field = fields[key.rawValue].field, field.kind != .null else { return .some(nil) }
            guard field.kind == .bool else { return nil }
            return bytes[field.valueRange.lowerBound] == UInt8(ascii: "t")
        }
        guard let isCluster = bool(.cluster),
              let plainID = plainString(bytes, fields[Key.id.rawValue].field, maxLength: 256),
              let latitudeField = fields[Key.latitude.rawValue].field, let longitudeField = fields[Key.longitude.rawValue].field,
              let latitudeValue = number(.latitude), let latitude = latitudeValue, (-90...90).contains(latitude),
              let longitudeValue = number(.longitude), let longitude = longitudeValue, (-180...180).contains(longitude),
              let temperature = number(.temperature), let windSpeed = number(.windSpeed),
              let windDirection = number(.windDirection), let precipitation = number(.precipitation) else { return nil }
        var icon: WeatherIcon?
        if let field = fields[Key.icon.rawValue].field, field.kind != .null {
            // Only a plain vocabulary word; anything else takes the general path and its message.
            guard field.kind == .string, let plain = plainString(bytes, field, maxLength: 32),
                  let word = WeatherIcon(rawValue: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(plain.lowerBound + 1)..<(plain.upperBound - 1)]), as: UTF8.self))
            else { return nil }
            icon = word
        }
        var clusterCount: Int?
        var plainName: Range<Int>?
        var name = ""
        if isCluster ?? false {
            guard let countValue = number(.count), let count = countValue, count == count.rounded(), abs(count) < 9e15, count > 0 else { return nil }
            clusterCount = Int(count)
        } else if let field = fields[Key.name.rawValue].field, field.kind != .null {
            guard field.kind == .string else { return nil }
            plainName = plainString(bytes, field, maxLength: .max)
            if plainName == nil { name = JSONDecoding.unescape(bytes, (field.valueRange.lowerBound + 1)..<(field.valueRange.upperBound - 1)) }
        }
        guard let stale = bool(.stale) else { return nil }
        return AnnotationInput(plainID: plainID, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                               latitudeText: latitudeField.valueRange, longitudeText: longitudeField.valueRange,
                               temperature: temperature, windSpeed: windSpeed, windDirection: windDirection,
                               precipitation: precipitation, icon: icon, clusterCount: clusterCount,
                               plainName: plainName, name: name, stale: stale == true)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
