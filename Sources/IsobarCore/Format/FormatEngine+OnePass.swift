/// The formatter's one-pass reader of `visible` lines: the filter's own layout read by position
/// (`annotationsFromFilterLine`), any other line parsed once with its `upsert` items read where the
/// parse reaches them; each item copied from ``FormatEngine/cache`` or written
/// (``FormatEngine/cachedOrWritten(_:code:titles:cache:limits:into:)``, the one place both ways
/// share).
extension FormatEngine {
    /// The bytes every line starts with that the one-pass reader tries (the filter writes `type` first).
    private static let visiblePrefix = Array(#"{"type":"visible","#.utf8)

    static func startsVisible(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count > visiblePrefix.count && line.hasBytes(visiblePrefix)
    }

    /// A `visible` line in one pass: each `upsert` item is validated and read where the line's
    /// parse reaches it (`JSONObject(storage:reading:with:)`, `AnnotationInput.scan`), instead of
    /// validating the whole line and then scanning every item again and looking up its members one
    /// by one. An item equal byte for byte to one formatted before is not scanned again: its
    /// annotation is copied from ``cache`` (``AnnotationCache``). Returns false, having written
    /// nothing, for any line it does not take whole (a bad line, an unusual item): `handle` then
    /// formats or rejects it the general way, so answers and error messages are the same either way.
    func annotationsInOnePass(_ line: UnsafeRawBufferPointer, into out: inout JSONWriter) -> Bool {
        guard let cache else {
            return (filterLayout && annotationsFromFilterLine(line, cache: nil, limits: nil, into: &out))
                || annotationsInOnePass(line, cache: nil, limits: nil, into: &out)
        }
        return cache.state.withLock { state in
            withUnsafeMutablePointer(to: &state) {
                (filterLayout && annotationsFromFilterLine(line, cache: $0, limits: cache, into: &out))
                    || annotationsInOnePass(line, cache: $0, limits: cache, into: &out)
            }
        }
    }

    /// A `visible` line in the filter's own layout (`VisibleLineHead`): its head and tail read by
    /// position and copied into the answer, its items read as `annotationsInOnePass` reads them,
    /// from the line itself (no copy of it), each written as soon as it is read (no list of read
    /// items, no second pass) and stored in the cache right away. False, having written nothing,
    /// for any other line (the answer begun is cut off; items stored in the cache on the way were
    /// each accepted by the reader, so they are as good as any other entry).
    func annotationsFromFilterLine(_ line: UnsafeRawBufferPointer, cache state: UnsafeMutablePointer<AnnotationCache.State>?,
                                   limits cache: AnnotationCache?, into out: inout JSONWriter) -> Bool {
        let parsed = if let state { VisibleLineHead(line, numbers: &state.pointee.headNumbers) } else { VisibleLineHead(line) }
        guard let head = parsed else { return false }
        let presentation = head.presentation.resolved(defaults)
        let code = presentation.cacheCode
        let titles = TitleFormatter(presentation)
        let mark = out.bytes.count
        head.write(line, presentation: presentation, into: &out)
        var scanner = JSONScanner(line, start: head.upsertStart)
        var ahead = ItemReadAhead()
        let read = scanner.forEachElement { scanner in
            let known = state.flatMap { ahead.hash(at: scanner.index, in: line, cache: $0) }
            return Self.cachedOrWritten(&scanner, code: code, titles: titles, cache: state, limits: cache, knownHash: known, into: &out)
        }
        guard read, let remove = VisibleLineHead.remove(line, from: scanner.index) else {
            out.truncate(to: mark)
            return false
        }
        out.arrayEnd()
        out.continuing(#","remove":"#)
        out.raw(UnsafeRawBufferPointer(rebasing: line[remove]))
        out.objectEnd()
        out.newline()
        return true
    }

    /// Any other `visible` line: parsed once, its `upsert` items checked by the reader where the
    /// parse reaches them (an item equal to a cached one was checked when it was stored: skipped);
    /// then, the head known, each item copied or written as `annotationsFromFilterLine` does.
    private func annotationsInOnePass(_ line: UnsafeRawBufferPointer, cache state: UnsafeMutablePointer<AnnotationCache.State>?,
                                      limits cache: AnnotationCache?, into out: inout JSONWriter) -> Bool {
        guard let object = try? JSONObject(storage: Array(line), reading: "upsert", with: { scanner in
                  scanner.forEachElement { scanner in Self.skipItem(&scanner, cache: state) }
              }),
              let visible = try? Visible(headOf: object, readingRemove: false),
              let upsert = object.field("upsert"),
              let remove = Self.removeField(object) else { return false }
        let presentation = visible.presentation.resolved(defaults)
        let code = presentation.cacheCode
        let titles = TitleFormatter(presentation)
        let mark = out.bytes.count
        Annotations(client: visible.client, version: visible.version, full: visible.full, day: visible.day,
                    presentation: presentation, snapshot: visible.snapshot).writeHead(to: &out)
        let read = object.storage.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes, start: upsert.valueRange.lowerBound)
            return scanner.forEachElement { scanner in
                Self.cachedOrWritten(&scanner, code: code, titles: titles, cache: state, limits: cache, into: &out)
            }
        }
        // Only when an item the parse found in the cache left it (a store emptied it) and the reader
        // declines it now: it was accepted when stored, so this does not happen.
        guard read else {
            out.truncate(to: mark)
            return false
        }
        Self.writeTail(remove: remove, object, into: &out)
        return true
    }

    /// The annotation of the `upsert` item at the scanner, the scanner moved past the item: copied
    /// from the cache when an entry holds this item (byte for byte) in presentation `code`, else
    /// read (`AnnotationInput.scan`), written and, when its id is plain, stored in the cache right
    /// away. False when the reader declines the item (the scanner is then anywhere; the caller cuts
    /// off the answer begun). `knownHash`: the item's id hash when it was found ahead
    /// (``ItemReadAhead``), else it is computed here.
    @inline(__always)
    static func cachedOrWritten(_ scanner: inout JSONScanner, code: Int, titles: TitleFormatter,
                                cache state: UnsafeMutablePointer<AnnotationCache.State>?, limits cache: AnnotationCache?,
                                knownHash: UInt64? = nil, into out: inout JSONWriter) -> Bool {
        let start = scanner.index
        let (hash, entry) = cached(scanner.bytes, at: start, cache: state, knownHash: knownHash)
        if let state, let entry, let index = state.pointee.entries[entry].output(code) {
            scanner.index = start + state.pointee.entries[entry].inputCount
            state.pointee.entries[entry].withOutput(index) { out.raw($0) }
            return true
        }
        // Not held, or not in this presentation: read (a held item again: the reader took these bytes before).
        guard let input = AnnotationInput.scan(&scanner) else { return false }
        let itemMark = out.bytes.count
        write(input, in: scanner.bytes, titles: titles, into: &out)
        if let state, let cache, let hash {
            let skip = out.bytes[itemMark] == UInt8(ascii: ",") ? 1 : 0
            out.bytes.withUnsafeBytes { written in
                state.pointee.store(hash, input: UnsafeRawBufferPointer(rebasing: scanner.bytes[start..<scanner.index]), presentation: code,
                                    output: UnsafeRawBufferPointer(rebasing: written[(itemMark + skip)...]),
                                    maxStations: cache.maxStations, maxBytes: cache.maxBytes)
            }
        }
        return true
    }

    /// Moves the scanner past the `upsert` item at it, the reader's check (`AnnotationInput.scan`)
    /// skipped when the cache holds the item; false when the reader declines it.
    private static func skipItem(_ scanner: inout JSONScanner, cache state: UnsafeMutablePointer<AnnotationCache.State>?) -> Bool {
        if let state, let entry = cached(scanner.bytes, at: scanner.index, cache: state).entry {
            scanner.index += state.pointee.entries[entry].inputCount
            return true
        }
        return AnnotationInput.scan(&scanner) != nil
    }

    /// The item at `start` in the cache: its id's table hash when it has a plain id written first
    /// (else it is never stored), and the entry whose input it equals, if any.
    @inline(__always)
    private static func cached(_ bytes: UnsafeRawBufferPointer, at start: Int, cache state: UnsafeMutablePointer<AnnotationCache.State>?,
                               knownHash: UInt64? = nil) -> (hash: UInt64?, entry: Int?) {
        guard let state, let hash = knownHash ?? plainIDHash(bytes, at: start, seed: state.pointee.seed) else { return (nil, nil) }
        return (hash, state.pointee.match(hash, bytes, at: start))
    }

    /// The table hash of the id of the next item at or after `at` that begins `{"id":"` with a plain
    /// id (`plainIDHash`), `at` moved past that item's `{`; nil at the end of the line. Items are
    /// found by those first bytes alone, which cannot occur inside a JSON string (its quotes would
    /// end the string), so on the filter's lines these are exactly the `upsert` items with plain
    /// ids, in order. A hint only (``ItemReadAhead``): nothing is checked here.
    static func nextItemIDHash(_ line: UnsafeRawBufferPointer, from at: inout Int, seed: UInt64) -> UInt64? {
        guard let base = line.baseAddress else { return nil }
        while at >= 0, at < line.count, let brace = memchr(base + at, Int32(UInt8(ascii: "{")), line.count - at) {
            let position = base.distance(to: UnsafeRawPointer(brace))
            at = position + 1
            if let hash = plainIDHash(line, at: position, seed: seed) { return hash }
        }
        at = line.count
        return nil
    }

    /// The bytes every item the filter writes starts with.
    private static let itemPrefix = Array(#"{"id":""#.utf8)

    /// The table hash of the item's id when the item at `start` begins `{"id":"` and the id is
    /// plain (no escape) and at most 256 bytes; nil otherwise.
    @inline(__always)
    private static func plainIDHash(_ bytes: UnsafeRawBufferPointer, at start: Int, seed: UInt64) -> UInt64? {
        guard start + itemPrefix.count < bytes.count, bytes.hasBytes(itemPrefix, at: start) else { return nil }
        let idStart = start + itemPrefix.count
        var i = idStart
        while i < bytes.count && i - idStart <= 256 {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                return i > idStart ? FNV1a.tableHash(bytes: UnsafeRawBufferPointer(rebasing: bytes[idStart..<i]), seed: seed) : nil
            }
            if byte == UInt8(ascii: "\\") { return nil }
            i += 1
        }
        return nil
    }

    /// The `remove` member when it is an array (absent: nil range), checked as `Visible.readIDs`
    /// checks it; nil (the line is not taken) otherwise.
    private static func removeField(_ object: JSONObject) -> JSONField?? {
        guard let field = object.field("remove") else { return .some(nil) }
        guard field.kind == .array else { return nil }
        for element in object.arrayElements(field) where element.kind != .string { return nil }
        return .some(field)
    }

    /// Closes `upsert` and writes `remove`: its text copied when already as the writer would write
    /// it (plain strings, no spaces: the filter's), else each id decoded and written.
    private static func writeTail(remove field: JSONField?, _ object: JSONObject, into out: inout JSONWriter) {
        guard let field else { Annotations.writeTail(remove: [String](), to: &out); return }
        let canonical = object.storage.withUnsafeBytes { bytes in isCanonicalStringArray(UnsafeRawBufferPointer(rebasing: bytes[field.valueRange])) }
        if canonical {
            out.arrayEnd()
            out.continuing(#","remove":"#)
            object.storage.withUnsafeBytes { out.raw(UnsafeRawBufferPointer(rebasing: $0[field.valueRange])) }
            out.objectEnd()
            out.newline()
        } else {
            Annotations.writeTail(remove: object.arrayElements(field).map { JSONDecodingAccess.string(object.storage, $0.range) }, to: &out)
        }
    }

    /// Whether `text` (a validated JSON array of strings) is exactly what `JSONWriter` writes for
    /// those strings: no whitespace, and no string with an escape or a DEL.
    static func isCanonicalStringArray(_ text: UnsafeRawBufferPointer) -> Bool {
        guard text.count >= 2, text[0] == UInt8(ascii: "["), text[text.count - 1] == UInt8(ascii: "]") else { return false }
        var inString = false
        for i in 1..<(text.count - 1) {
            let byte = text[i]
            if byte == UInt8(ascii: "\\") || byte == 0x7F { return false }
            if byte == UInt8(ascii: "\"") { inString.toggle(); continue }
            if !inString && byte != UInt8(ascii: ",") { return false }
        }
        return !inString
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
