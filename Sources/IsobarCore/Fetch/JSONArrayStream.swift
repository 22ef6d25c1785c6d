/// Splits a JSON array that arrives in chunks into its top-level elements, so a feed of a million
/// records is read as it downloads and never held whole: only the element being read is kept.
///
/// It checks the array's own syntax (the brackets, the commas between elements, nothing but
/// whitespace around) and finds where each element ends by following strings, escapes and nesting;
/// each element's bytes are then handed to `body`, whose parser checks the element itself. An
/// error names the byte offset in the whole body, like `JSONArray`'s.
public struct JSONArrayStream {
    private enum State {
        /// Before the `[`.
        case start
        /// After `[` or a comma: an element (or, right after `[`, the `]`) comes next.
        case beforeElement(first: Bool)
        /// Inside an object or array element (`depth` open brackets).
        case inContainer
        /// Inside a top-level string element.
        case inString
        /// Inside a number or literal element (ends at a delimiter).
        case inScalar
        /// After an element: a comma or the `]`.
        case afterElement
        /// After the `]`: only whitespace.
        case done
    }

    private var state = State.start
    /// Bytes of the element being read that came in earlier chunks.
    private var pending: [UInt8] = []
    /// Where that element began in the whole body.
    private var pendingStart = 0
    /// Offset in the whole body of the next byte to read.
    private var offset = 0
    private var depth = 0
    /// Inside a string of a container element.
    private var inNestedString = false
    /// The previous byte was a backslash inside a string.
    private var escaped = false
    /// The buffer an element is copied into when it lies in one chunk (nearly every record): the
    /// handler's reading of it is over when it returns, so the same buffer serves the next one
    /// instead of an allocation per record.
    private var reused: [UInt8] = []
    /// Elements handed over so far.
    public private(set) var count = 0

    public init() {}

    /// Whether the closing `]` has been read.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Reads the next chunk, calling `body` with each element completed in it (its bytes, whether
    /// it is an object, and its offset in the whole body). Throws on a syntax error of the array.
    public mutating func append<E: Error>(_ chunk: UnsafeRawBufferPointer,
                                          _ body: ([UInt8], Bool, Int) throws(E) -> Void) throws(JSONArrayStreamError<E>) {
        // Where the current element began in this chunk (0 when it began in an earlier one).
        var start: Int?
        switch state {
        case .inContainer, .inString, .inScalar: start = 0
        case .start, .beforeElement, .afterElement, .done: start = nil
        }
        var i = 0
        let n = chunk.count
        func fail(_ what: String, at index: Int) -> JSONArrayStreamError<E> {
            .syntax("\(what) at byte \(offset + index)")
        }
        while i < n {
            let byte = chunk[i]
            switch state {
            case .start:
                if Self.isWhitespace(byte) { break }
                guard byte == UInt8(ascii: "[") else {
                    throw .syntax("expected a JSON array, found \(Self.describe(byte)) at byte \(offset + i)")
                }
                state = .beforeElement(first: true)
            case .beforeElement(let first):
                if Self.isWhitespace(byte) { break }
                if byte == UInt8(ascii: "]") {
                    guard first else { throw fail("expected an element after the comma, found ']'", at: i) }
                    state = .done
                    break
                }
                start = i
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth = 1
                    inNestedString = false
                    state = .inContainer
                case UInt8(ascii: "\""):
                    escaped = false
                    state = .inString
                case UInt8(ascii: ","):
                    throw fail("expected an element, found ','", at: i)
                default:
                    state = .inScalar
                }
            case .inContainer:
                // The hot loop (a million records): only quotes, backslashes and brackets matter.
                // Locals, so the loop keeps them in registers.
                var inString = inNestedString, isEscaped = escaped, level = depth
                while i < n {
                    if !isEscaped {
                        // Most bytes are none of " \ { } [ ]: skip them eight at a time, landing on
                        // the first one that is, then the last few bytes of the chunk one by one.
                        while i + 8 <= n {
                            let found = Self.structuralBytes(chunk.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                            if found != 0 {
                                i += found.trailingZeroBitCount >> 3
                                break
                            }
                            i += 8
                        }
                        while i < n && !Self.isStructural(chunk[i]) { i += 1 }
                        if i == n { break }
                    }
                    let byte = chunk[i]
                    if inString {
                        if isEscaped {
                            isEscaped = false
                        } else if byte == UInt8(ascii: "\\") {
                            isEscaped = true
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                        }
                    } else if byte == UInt8(ascii: "\"") {
                        inString = true
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        level += 1
                    } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        level -= 1
                        if level == 0 { break }
                    }
                    i += 1
                }
                inNestedString = inString
                escaped = isEscaped
                depth = level
                guard i < n else { continue }  // the element goes on in the next chunk
                try finishElement(chunk, from: start ?? 0, through: i, body)
                start = nil
            case .inString:
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    try finishElement(chunk, from: start ?? 0, through: i, body)
                    start = nil
                }
            case .inScalar:
                if Self.isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") {
                    try finishElement(chunk, from: start ?? 0, through: i - 1, body)
                    start = nil
                    continue  // the delimiter is read again, after the element
                }
            case .afterElement:
                if Self.isWhitespace(byte) { break }
                if byte == UInt8(ascii: ",") { state = .beforeElement(first: false); break }
                if byte == UInt8(ascii: "]") { state = .done; break }
                throw fail("expected ',' or ']' after an element, found \(Self.describe(byte))", at: i)
            case .done:
                if Self.isWhitespace(byte) { break }
                throw fail("unexpected \(Self.describe(byte)) after the array", at: i)
            }
            i += 1
        }
        // The unfinished element's bytes wait for the next chunk.
        if let start {
            if pending.isEmpty { pendingStart = offset + start }
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<n]))
        }
        offset += n
    }

    /// Ends the body: throws unless the array was closed.
    public func finish() throws(JSONArrayStreamError<Never>) {
        guard case .done = state else {
            if case .start = state { throw .syntax("expected a JSON array, found the end of the body at byte \(offset)") }
            throw .syntax("the array is not closed: the body ends at byte \(offset)")
        }
    }

    private mutating func finishElement<E: Error>(_ chunk: UnsafeRawBufferPointer, from start: Int, through end: Int,
                                                  _ body: ([UInt8], Bool, Int) throws(E) -> Void) throws(JSONArrayStreamError<E>) {
        let isObject: Bool
        var element: [UInt8]
        let elementStart = pending.isEmpty ? offset + start : pendingStart
        if pending.isEmpty {
            element = reused
            reused = []  // `element` the buffer's only owner, so it is refilled in place
            element.removeAll(keepingCapacity: true)
            if end >= start { element.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start...end])) }
        } else {
            element = pending
            pending = []
            if end >= start { element.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start...end])) }
        }
        isObject = element.first == UInt8(ascii: "{")
        state = .afterElement
        count += 1
        do { try body(element, isObject, elementStart) } catch { throw .element(error) }
        // (Still shared if the handler kept it: the next refill then copies. A huge element's
        // buffer is let go.)
        if element.capacity <= 1 << 16 { reused = element }
    }

    /// `"`, `\\`, `{`, `}`, `[` or `]` (`[` and `]` are `{` and `}` with bit 5 clear).
    @inline(__always) static func isStructural(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte | 0x20 == UInt8(ascii: "{") || byte | 0x20 == UInt8(ascii: "}")
    }

    /// The high bit of each byte of `word` that is structural (as `isStructural`), and possibly of
    /// bytes above one (the borrow of `JSONScanner.matches`): the lowest set bit is exactly the
    /// first structural byte in memory order (a little-endian load).
    @inline(__always) static func structuralBytes(_ word: UInt64) -> UInt64 {
        let folded = word | 0x2020_2020_2020_2020  // [ and ] onto { and }
        return JSONScanner.matches(word, UInt8(ascii: "\"")) | JSONScanner.matches(word, UInt8(ascii: "\\"))
            | JSONScanner.matches(folded, UInt8(ascii: "{")) | JSONScanner.matches(folded, UInt8(ascii: "}"))
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "\""): "a string"
        case 0x21...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        default: "byte 0x" + String(byte, radix: 16)
        }
    }
}

/// Why a streamed array was refused: its own syntax, or what the element handler threw.
public enum JSONArrayStreamError<E: Error>: Error {
    case syntax(String)
    case element(E)
}
