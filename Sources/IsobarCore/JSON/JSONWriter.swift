/// Appends JSON to a byte buffer without building intermediate values.
///
/// Commas are placed automatically: call `key` before each member value in an object and the
/// value functions directly inside arrays. Non-finite numbers are written as `null` because JSON
/// cannot carry them.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func objectStart() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func objectEnd() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func arrayStart() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func arrayEnd() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"key":`; the next value call completes the member.
    /// (`,"name":` goes in one append through a stack buffer: keys are a third of what the filter
    /// and the formatter write, and each append checks capacity and uniqueness.)
    public mutating func key(_ name: StaticString) {
        let count = name.utf8CodeUnitCount
        guard count <= 60 else {
            separate()
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: count))
            bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
            needsComma = false
            return
        }
        appendSeparated(count + 3) { at in
            at[0] = UInt8(ascii: "\"")
            (at + 1).update(from: name.utf8Start, count: count)
            at[count + 1] = UInt8(ascii: "\"")
            at[count + 2] = UInt8(ascii: ":")
        }
    }

    /// Writes JSON text that begins a member or an element and ends where its value goes
    /// (`{"id":`, `"coordinate":{"latitude":`), with the comma first when one is due, in one
    /// append: the hot writers' runs of constant text. The next value call completes it.
    public mutating func opening(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        guard count <= 62 else {
            separate()
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: count))
            needsComma = false
            return
        }
        appendSeparated(count) { $0.update(from: text.utf8Start, count: count) }
    }

    /// Appends the comma when one is due and then `count` (at most 63) bytes that `fill` writes
    /// at the pointer, in one append through a stack buffer; the next value completes the member.
    @inline(__always)
    private mutating func appendSeparated(_ count: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        let comma = needsComma
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress else { return }
            let start = comma ? 1 : 0
            if comma { base[0] = UInt8(ascii: ",") }
            fill(base + start)
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: start + count))
        }
        needsComma = false
    }

    /// Writes JSON text that continues after a value and ends where the next value goes
    /// (`,"longitude":`, `},"title":`), as is, in one append. The next value call completes it.
    public mutating func continuing(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        needsComma = false
    }

    /// A key computed at run time (literals take the `StaticString` overload, which copies nothing).
    public mutating func key(text name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) { separate(); appendQuoted(value) }

    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func number(_ value: Double) {
        separate()
        appendNumber(value)
    }

    public mutating func number(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    public mutating func int(_ value: Int) {
        separate()
        appendInt(value)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value { append("true") } else { append("false") }
    }

    public mutating func null() { separate(); append("null") }

    /// Inserts already-encoded JSON (a value taken verbatim from an input line).
    public mutating func raw<C: Collection>(_ json: C) where C.Element == UInt8 {
        separate()
        bytes.append(contentsOf: json)
    }

    /// Inserts already-encoded JSON that opens an object and ends with a key (`{"a":1,"b":`), as
    /// `objectStart` and those members would: the next value completes the member.
    public mutating func rawOpening(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = false
    }

    /// Ends the current line and resets comma state for the next message.
    public mutating func newline() {
        bytes.append(0x0A)
        needsComma = false
    }

    /// Drops everything after `count` bytes (a message abandoned half-way) and starts a new line.
    public mutating func truncate(to count: Int) {
        bytes.removeSubrange(min(count, bytes.count)...)
        needsComma = false
    }

    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Decimal digits written straight into the buffer (no intermediate String).
    private mutating func appendInt(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        appendDecimal(negative: value < 0, whole: UInt64(value.magnitude), fraction: 0, fractionDigits: 0)
    }

    /// Appends `-whole.fraction` (the sign when `negative`; the point and exactly `fractionDigits`
    /// digits of `fraction`, zero-padded on the left, when `fractionDigits` > 0) in one append: the
    /// text is built in a stack buffer, right to left, instead of byte by byte into `bytes` (each
    /// append checks capacity and uniqueness; numbers are most of what the filter writes).
    private mutating func appendDecimal(negative: Bool, whole: UInt64, fraction: UInt64, fractionDigits: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            var at = buffer.count
            var rest = fraction
            for _ in 0..<fractionDigits {
                at -= 1
                buffer[at] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            if fractionDigits > 0 {
                at -= 1
                buffer[at] = UInt8(ascii: ".")
            }
            rest = whole
            repeat {
                at -= 1
                buffer[at] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if negative {
                at -= 1
                buffer[at] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[at...]))
        }
    }

    /// Integral values print without a fraction ("46", not "46.0"); others in Swift's shortest
    /// round-trip form, which is valid JSON.
    private mutating func appendNumber(_ value: Double) {
        guard value.isFinite else { append("null"); return }
        if value == value.rounded(.towardZero) && abs(value) < 1e15 {
            appendInt(Int(value))
            return
        }
        if appendShortDecimal(value) { return }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes `value` directly when it is the double nearest to a decimal with at most five
    /// fraction digits (coordinates, temperatures, speeds: nearly every number Isobar writes), as
    /// those digits with trailing zeros dropped. That is the shortest text that reads back as the
    /// same double (two such decimals are far more than an ulp apart below 1e9), so it matches
    /// `description` except that tiny values print as `0.00001` rather than `1e-05`. The test is
    /// exact: `k / 1e5` is correctly rounded, so it equals `value` only if `value` is that decimal.
    private mutating func appendShortDecimal(_ value: Double) -> Bool {
        let magnitude = abs(value)
        guard magnitude < 1e9 else { return false }
        let scaled = (magnitude * 100_000).rounded()
        guard scaled / 100_000 == magnitude else { return false }
        let units = UInt64(scaled)
        var fraction = units % 100_000
        var digits = 5
        while fraction % 10 == 0 && digits > 1 { fraction /= 10; digits -= 1 }
        appendDecimal(negative: value < 0, whole: units / 100_000, fraction: fraction, fractionDigits: digits)
        return true
    }

    /// Whether `text` (a validated JSON number) is exactly what `number(_:)` writes for its value,
    /// so it can be copied (`raw`) instead of parsed and printed again: an integer below 1e9 other
    /// than `-0`, or one with 1 to 5 fraction digits, the last not `0` (see `appendShortDecimal`).
    public static func isCanonicalShortNumber<Text: Collection<UInt8>>(_ text: Text) -> Bool where Text.Index == Int {
        var i = text.startIndex
        let end = text.endIndex
        if i < end && text[i] == UInt8(ascii: "-") { i += 1 }
        let wholeStart = i
        while i < end && text[i] >= UInt8(ascii: "0") && text[i] <= UInt8(ascii: "9") { i += 1 }
        let wholeDigits = i - wholeStart
        guard wholeDigits >= 1 && wholeDigits <= 9 else { return false }
        guard wholeDigits == 1 || text[wholeStart] != UInt8(ascii: "0") else { return false }
        if i == end {
            // "-0" prints as "0".
            return !(text[text.startIndex] == UInt8(ascii: "-") && wholeDigits == 1 && text[wholeStart] == UInt8(ascii: "0"))
        }
        guard text[i] == UInt8(ascii: ".") else { return false }
        i += 1
        let fractionStart = i
        while i < end && text[i] >= UInt8(ascii: "0") && text[i] <= UInt8(ascii: "9") { i += 1 }
        let fractionDigits = i - fractionStart
        return i == end && fractionDigits >= 1 && fractionDigits <= 5 && text[end - 1] != UInt8(ascii: "0")
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (ids, names, titles) need no escape: copy them whole.
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            for byte in utf8 where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
