/// Reading a viewport line in the one shape every Isobar writer gives it (``Viewport/write(to:)``:
/// the app, the gateway, the benchmarks), straight from the line: no copy of the line, no
/// `JSONObject` and no field list, no second scan of `center` and `span`. The filter reads one per
/// pan, and the generic path (parse, then look each field up) was a tenth of its cost per update.
///
/// Only a line of exactly that shape is read here: the members in `write`'s order, no whitespace,
/// strings without escapes or control bytes, numbers without exponents; and only a viewport the
/// generic reader would accept, with the same values. Anything else (another order, an extra
/// member, a value out of range, a client name with a `/`, which an error could not name) gives nil, and the caller reads the line the generic way, which
/// also words any error. So this is a shortcut, never a second set of rules.
extension Viewport {
    /// The viewport on `line` when it has the canonical shape and is valid; nil otherwise.
    public init?(canonical line: UnsafeRawBufferPointer) {
        var reader = CanonicalReader(line: line)
        guard reader.literal(#"{"type":"viewport","client":""#), let client = reader.plainString(),
              !client.isEmpty, client.count <= 256, !client.contains(UInt8(ascii: "/")),
              reader.literal(#","center":{"latitude":"#), let latitude = reader.number(),
              reader.literal(#","longitude":"#), let longitude = reader.number(),
              reader.literal(#"},"span":{"latitudeDelta":"#), let latitudeDelta = reader.number(),
              reader.literal(#","longitudeDelta":"#), let longitudeDelta = reader.number(),
              reader.literal("}") else { return nil }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude),
              let region = try? Region(center: Coordinate(latitude: latitude, longitude: longitude),
                                       latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta) else { return nil }
        var day: Day?
        var presentation = Presentation()
        guard reader.enumMember(#","day":""#, into: &day),
              reader.enumMember(#","field":""#, into: &presentation.field),
              reader.enumMember(#","units":""#, into: &presentation.units),
              reader.enumMember(#","windUnit":""#, into: &presentation.windUnit),
              reader.enumMember(#","locale":""#, into: &presentation.locale) else { return nil }
        var limit = Viewport.defaultLimit
        if reader.literal(#","limit":"#) {
            guard let value = reader.integer(), value >= 1 && value <= Viewport.maxLimit else { return nil }
            limit = value
        }
        var version: Int?
        if reader.literal(#","version":"#) {
            guard let value = reader.integer(), value >= 0 && value <= Viewport.maxVersion else { return nil }
            version = value
        }
        var gateway: String?
        if reader.literal(#","gateway":""#) {
            guard let raw = reader.plainString() else { return nil }
            gateway = raw.isEmpty ? nil : String(decoding: raw, as: UTF8.self)
        }
        var ref: Int?
        if reader.literal(#","ref":"#) {
            guard let value = reader.integer(), value >= 0 else { return nil }
            ref = value
        }
        guard reader.literal("}"), reader.atEnd else { return nil }
        self.init(client: String(decoding: client, as: UTF8.self), region: region, day: day ?? .today, presentation: presentation,
                  limit: limit, version: version, gateway: gateway, ref: ref)
    }
}

/// A cursor over one line for ``Viewport/init(canonical:)``.
private struct CanonicalReader {
    let line: UnsafeRawBufferPointer
    var index = 0

    init(line: UnsafeRawBufferPointer) { self.line = line }

    var atEnd: Bool { index == line.count }

    /// Consumes `text` when the line continues with it.
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard line.count - index >= count, let base = line.baseAddress,
              memcmp(base + index, text.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    /// When the line continues with `opening` (`,"key":"`), reads the string that follows as a
    /// `T` into `value`; false when it is not one of `T`'s values (true when the member is absent).
    mutating func enumMember<T: RawRepresentable>(_ opening: StaticString, into value: inout T?) -> Bool where T.RawValue == String {
        guard literal(opening) else { return true }
        guard let raw = plainString(), let read = T(rawValue: String(decoding: raw, as: UTF8.self)) else { return false }
        value = read
        return true
    }

    /// The contents of a string whose opening quote was consumed, through its closing quote:
    /// printable ASCII only (no escape, no control byte, nothing that needs decoding); nil otherwise.
    mutating func plainString() -> UnsafeRawBufferPointer? {
        let start = index
        while index < line.count {
            let byte = line[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeRawBufferPointer(rebasing: line[start..<(index - 1)])
            }
            guard byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// A JSON number without an exponent (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most 20 integer
    /// digits), read as the generic reader reads it (`JSONDecoding.parseNumber`, -0 as 0).
    mutating func number() -> Double? {
        let start = index
        if index < line.count && line[index] == UInt8(ascii: "-") { index += 1 }
        let wholeStart = index
        while index < line.count && JSONScanner.isDigit(line[index]) { index += 1 }
        let whole = index - wholeStart
        guard whole >= 1 && whole <= 20, whole == 1 || line[wholeStart] != UInt8(ascii: "0") else { return nil }
        if index < line.count && line[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < line.count && JSONScanner.isDigit(line[index]) { index += 1 }
            guard index > fractionStart else { return nil }
        }
        if index < line.count && (line[index] == UInt8(ascii: "e") || line[index] == UInt8(ascii: "E")) { return nil }
        // The exact integer reader first (no C string, no strtod); the general one for the rest.
        let value = ExactDecimal.parse(line, start..<index) ?? JSONDecoding.parseNumber(line, start..<index)
        guard value.isFinite else { return nil }
        return value + 0.0
    }

    /// A number that is an integer below 9e15 (what `optionalInt` accepts), as an Int.
    mutating func integer() -> Int? {
        guard let value = number(), value == value.rounded(), abs(value) < 9e15 else { return nil }
        return Int(value)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
