/// The head and tail of a `visible` line laid out exactly as the filter writes it
/// (`Visible.writeHead`, `Visible.writeTail`), read by position instead of parsed: the formatter's
/// fastest path (`FormatEngine.annotationsFromFilterLine`).
///
/// It takes only the filter's own layout, member by member in the filter's order, without
/// whitespace: `type`, `client`, `version`, `full`, `day`, the four provenance members, any of
/// `field`, `units`, `windUnit`, `locale`, then `upsert` (read by the caller) and `remove`, and
/// the line's end right after the object. Each value must be one the general reader accepts and
/// whose text is what the answer writes for it: a plain string (no escape, no DEL: `JSONWriter`
/// writes it the same), an integer version without sign or exponent, `true`/`false`, a known day
/// or presentation word. Anything else (another order, a null flag, an unknown key, an escape)
/// makes it decline, and the line takes the parsing paths, so answers and errors are unchanged
/// (`FormatHeadTests` compares the paths). Every byte it takes is validated as the parser would
/// (printable-ASCII strings by a byte loop, other strings by `JSONScanner.scanString`, numbers by
/// `scanValue`).
struct VisibleLineHead {
    /// `"client":…,"version":…,"full":…,"day":…` as the line has them: the answer's same members,
    /// copied in one piece.
    var identity: Range<Int>
    /// `"snapshot":…,"source":…` (each a plain string or `null`), copied in one piece.
    var origin: Range<Int>
    /// `"fetchedAt":…,"ageSeconds":…`, copied in one piece when both numbers are `.text`.
    var provenance: Range<Int>
    var fetchedAt: Number
    var ageSeconds: Number
    var presentation: Presentation
    /// Where `upsert`'s `[` is.
    var upsertStart: Int

    /// A provenance number as the answer writes it: its text when that is already what
    /// `JSONWriter.number` prints (or `null`), else the bytes `JSONWriter.number` prints for its value.
    enum Number {
        case text(Range<Int>)
        case printed([UInt8])
    }

    /// A provenance number that is not copied as it is (`fetchedAt` in Unix seconds has ten digits,
    /// beyond `JSONWriter.isCanonicalShortNumber`) as last read: its text and what the answer
    /// writes for it (both empty: none yet).
    struct PrintedNumber {
        /// The longest number text kept (longer ones are printed on every line).
        static let maxKeptText = 40
        var text: [UInt8] = []
        var printed: [UInt8] = []
    }

    /// The last printed `fetchedAt` and `ageSeconds`: a line's provenance is its snapshot's, the
    /// same on every line until the next snapshot, so each is parsed and printed once a snapshot
    /// instead of once a line (the formatter keeps them with its cache, `AnnotationCache.State`).
    struct PrintedNumbers {
        var fetchedAt = PrintedNumber()
        var ageSeconds = PrintedNumber()
    }

    /// Reads the head of `bytes` up to `upsert`'s `[`; nil when it is not the filter's layout.
    init?(_ bytes: UnsafeRawBufferPointer) {
        var numbers = PrintedNumbers()
        self.init(bytes, numbers: &numbers)
    }

    /// Reads the head of `bytes` as `init(_:)` does, taking a provenance number that needs printing
    /// from `numbers` when its text is the one printed last (and leaving the new one there).
    init?(_ bytes: UnsafeRawBufferPointer, numbers: inout PrintedNumbers) {
        var reader = Reader(bytes: bytes)
        guard reader.literal(#"{"type":"visible","#) else { return nil }
        let identityStart = reader.index
        guard reader.literal(#""client":"#), let client = reader.plainString(), client.count > 2, client.count - 2 <= 256,
              reader.literal(#","version":"#), reader.version() != nil,
              reader.literal(#","full":"#), reader.flag() != nil,
              reader.literal(#","day":"#), reader.day() != nil else { return nil }
        let identityEnd = reader.index
        guard reader.literal(",") else { return nil }
        let originStart = reader.index
        guard reader.literal(#""snapshot":"#), reader.stringOrNull() != nil,
              reader.literal(#","source":"#), reader.stringOrNull() != nil else { return nil }
        let originEnd = reader.index
        guard reader.literal(",") else { return nil }
        let provenanceStart = reader.index
        guard reader.literal(#""fetchedAt":"#), let fetchedAt = reader.number(last: &numbers.fetchedAt),
              reader.literal(#","ageSeconds":"#), let ageSeconds = reader.number(last: &numbers.ageSeconds) else { return nil }
        let provenanceEnd = reader.index
        var presentation = Presentation()
        if reader.literal(#","field":"#) { guard let value = reader.word(Field.self) else { return nil }; presentation.field = value }
        if reader.literal(#","units":"#) { guard let value = reader.word(Units.self) else { return nil }; presentation.units = value }
        if reader.literal(#","windUnit":"#) { guard let value = reader.word(WindUnit.self) else { return nil }; presentation.windUnit = value }
        if reader.literal(#","locale":"#) { guard let value = reader.word(Locale.self) else { return nil }; presentation.locale = value }
        guard reader.literal(#","upsert":["#) else { return nil }
        identity = identityStart..<identityEnd
        origin = originStart..<originEnd
        provenance = provenanceStart..<provenanceEnd
        self.fetchedAt = fetchedAt
        self.ageSeconds = ageSeconds
        self.presentation = presentation
        upsertStart = reader.index - 1
    }

    /// Reads `,"remove":[…]}` from `start` (just past `upsert`'s `]`) to the line's end: the range
    /// of the array when every id is a plain string and the line ends right after the object.
    static func remove(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Range<Int>? {
        var reader = Reader(bytes: bytes, index: start)
        guard reader.literal(#","remove":["#) else { return nil }
        let arrayStart = reader.index - 1
        if !reader.literal("]") {
            repeat {
                guard let id = reader.plainString(), id.count >= 2 else { return nil }
            } while reader.literal(",")
            guard reader.literal("]") else { return nil }
        }
        let arrayEnd = reader.index
        guard reader.literal("}"), reader.index == bytes.count else { return nil }
        return arrayStart..<arrayEnd
    }

    /// Writes the answer's head, `{"type":"annotations",…,"upsert":[`: the same bytes as
    /// `Annotations.writeHead` for this line read the general way, `presentation` being this
    /// line's presentation resolved.
    func write(_ bytes: UnsafeRawBufferPointer, presentation: ResolvedPresentation, into out: inout JSONWriter) {
        func copy(_ range: Range<Int>) { out.raw(UnsafeRawBufferPointer(rebasing: bytes[range])) }
        func write(_ number: Number) {
            switch number {
            case .text(let range): copy(range)
            case .printed(let text): out.raw(text)
            }
        }
        // Runs of members the line has exactly as the answer writes them are copied whole (`raw`
        // puts the comma before each run after the first).
        out.opening(#"{"type":"annotations","#)
        copy(identity)
        out.raw(ResolvedPresentation.membersByCacheCode[presentation.cacheCode])
        copy(origin)
        if case .text = fetchedAt, case .text = ageSeconds {
            copy(provenance)
        } else {
            out.continuing(#","fetchedAt":"#); write(fetchedAt)
            out.continuing(#","ageSeconds":"#); write(ageSeconds)
        }
        out.continuing(#","upsert":["#)
    }

    /// A cursor over the line: each read moves past what it took, or returns nil/false.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        /// Moves past `text` when the bytes at the cursor are exactly it. (Inlined: with the
        /// literal's length known, the comparison is a load or two instead of a call to `memcmp`.)
        @inline(__always)
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count, let base = bytes.baseAddress, memcmp(base + index, text.utf8Start, count) == 0 else { return false }
            index += count
            return true
        }

        /// A string without escapes or DEL (the writer writes it as is), validated; with its quotes.
        mutating func plainString() -> Range<Int>? {
            let start = index
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            // Printable ASCII other than a quote or a backslash up to the closing quote (the ids of
            // `remove`, tens a line, and every head string the filter writes) is such a string as it
            // is; anything else (non-ASCII, an escape, a control byte, DEL, the line's end) takes
            // the scanner's validation below.
            var i = index + 1
            while i < bytes.count, bytes[i] >= 0x20, bytes[i] < 0x7F, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\") { i += 1 }
            if i < bytes.count && bytes[i] == UInt8(ascii: "\"") {
                index = i + 1
                return start..<index
            }
            var scanner = JSONScanner(bytes, start: index)
            guard let escaped = try? scanner.scanString(), !escaped,
                  !bytes.hasBackslashOrDEL(in: start..<scanner.index) else { return nil }
            index = scanner.index
            return start..<index
        }

        mutating func stringOrNull() -> Range<Int>? {
            let start = index
            return literal("null") ? start..<index : plainString()
        }

        /// `0` or up to 15 digits without a leading zero: an integer `optionalInt` takes and
        /// `JSONWriter.int` prints the same.
        mutating func version() -> Range<Int>? {
            let start = index
            while index < bytes.count && JSONScanner.isDigit(bytes[index]) { index += 1 }
            let digits = index - start
            guard digits >= 1, digits <= 15, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            return start..<index
        }

        mutating func flag() -> Range<Int>? {
            let start = index
            return literal("true") || literal("false") ? start..<index : nil
        }

        mutating func day() -> Range<Int>? {
            let start = index
            return literal(#""today""#) || literal(#""tomorrow""#) ? start..<index : nil
        }

        /// A number (validated by the scanner; finite, -0 read as 0) or `null`. One that needs
        /// printing is taken from `last` when its text is `last`'s, else parsed, printed and kept there.
        mutating func number(last: inout PrintedNumber) -> Number? {
            let start = index
            if literal("null") { return .text(start..<index) }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || JSONScanner.isDigit(bytes[index]) else { return nil }
            var scanner = JSONScanner(bytes, start: index)
            guard (try? scanner.scanValue(depth: 1)) == .number else { return nil }
            index = scanner.index
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if JSONWriter.isCanonicalShortNumber(text) { return .text(start..<index) }
            if last.text.count == text.count, last.text.withUnsafeBytes({ text.elementsEqual($0) }) {
                return .printed(last.printed)
            }
            let value = JSONDecoding.parseNumber(bytes, start..<index)
            guard value.isFinite else { return nil }
            var writer = JSONWriter(capacity: 32)
            writer.number(value + 0.0)
            // Kept only when short (any real fetchedAt or age is): a finite number's text can be
            // as long as the line (`0.000…1`), and this is held between lines, outside the cache's bound.
            if text.count <= PrintedNumber.maxKeptText { last = PrintedNumber(text: Array(text), printed: writer.bytes) }
            return .printed(writer.bytes)
        }

        /// A plain string that is one of `T`'s words.
        mutating func word<T: RawRepresentable & CaseIterable>(_: T.Type) -> T? where T.RawValue == String {
            guard let range = plainString() else { return nil }
            let text = UnsafeRawBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
            for value in T.allCases where value.rawValue.utf8.elementsEqual(text) { return value }
            return nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
