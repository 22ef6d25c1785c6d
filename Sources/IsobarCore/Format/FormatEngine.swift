/// The formatter: turns the filter's `visible` sets into the client contract's `annotations`,
/// `selection` into `callout`, `closest`/`matches` into `place`/`results` and `pinned` into
/// `starred`. Stateless per client (the filter owns versions and
/// selections), so it can be restarted or replaced at any moment.
public struct FormatEngine: Sendable, LineStage {
    /// The formatter in the table of message types: it subscribes to the filter's per-client
    /// outputs (``Stage/subscriptions``).
    public static let party = Party.format
    /// Used for whatever a client's viewport did not specify.
    public var defaults: ResolvedPresentation

    /// Whether `visible` lines take the one-pass reader (`annotationsInOnePass`) when they can. Off,
    /// every line takes the general path: the tests and the `format` fuzz target compare the two.
    public var onePass = true
    /// Whether the one-pass reader first tries the filter's own layout (`VisibleLineHead`: the
    /// head and tail read by position and copied, no parse of the line's top level). Off, it parses
    /// every line's top level: the tests compare the two.
    public var filterLayout = true
    /// Annotations formatted for earlier `visible` lines, by station (nil: format every item). Shared
    /// by copies of this engine; safe, since a stored annotation is keyed by its presentation.
    var cache: AnnotationCache? = AnnotationCache()
    /// Where a station whose feed names no time zone takes one from: its nearest gazetteer place's
    /// (nil: such stations' times are in UTC). PROTOCOL.md, "Local time".
    public var zones: ZoneIndex?

    public init(defaults: ResolvedPresentation = ResolvedPresentation(), zones: ZoneIndex? = nil) {
        self.defaults = defaults
        self.zones = zones
    }

    /// The zone `station`'s times are shown in: the feed's IANA zone when the tz database knows
    /// it, else the feed's UTC offset, else the nearest gazetteer place's zone, else UTC.
    public func zone(of station: Station) -> LocalZone {
        if let name = station.details?.timeZone, let zone = LocalZone(identifier: name) { return zone }
        if let offset = station.details?.utcOffset, let zone = LocalZone(offsetSeconds: Int(offset)) { return zone }
        return zones?.zone(near: station.coordinate) ?? .utc
    }

    /// ``LineStage``'s entry: the stage keeps no time.
    public func handle(line: UnsafeRawBufferPointer, now: Double, into out: inout JSONWriter) {
        handle(line: line, into: &out)
    }

    public func handle(line: UnsafeRawBufferPointer, into out: inout JSONWriter) {
        if onePass && Self.startsVisible(line) && annotationsInOnePass(line, into: &out) { return }
        let object: JSONObject
        do {
            object = try JSONObject(parsing: line)
        } catch {
            ErrorMessage(stage: Self.stage, message: "not a JSON object: \(error)", line: line, code: .notJSON).write(to: &out)
            return
        }
        let mark = out.bytes.count
        do {
            switch try object.requireName("type", maxLength: .max) {
            case "visible": try annotations(object, into: &out)
            case "selection": try callout(object, into: &out)
            case "closest": try place(object, into: &out)
            case "matches": try results(object, into: &out)
            case "pinned": try starred(object, into: &out)
            case "particulars": try report(object, into: &out)
            case "ambient": try conditions(object, into: &out)
            default:
                out.raw(object.rawBytes)
                out.newline()
            }
        } catch {
            out.truncate(to: mark)  // drop a half-written message
            ErrorMessage(stage: Self.stage, error, line: line, client: ErrorMessage.client(of: object)).write(to: &out)
        }
    }

    private func annotations(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let visible = try Visible(headOf: object)
        let presentation = visible.presentation.resolved(defaults)
        let titles = TitleFormatter(presentation)
        guard let upsertField = object.field("upsert") else { throw MessageError("field \"upsert\" must be an array") }
        // The head and tail typed; each item written in place from the filter's line (the same
        // bytes as `Annotations.Item.write(to:field:)`, copying text that is already canonical).
        Annotations(client: visible.client, version: visible.version, full: visible.full, day: visible.day,
                    presentation: presentation, snapshot: visible.snapshot).writeHead(to: &out)
        try object.forEachElement(upsertField) { (item, _) throws(MessageError) in
            guard let item else { throw MessageError("\"upsert\" must hold objects") }
            try annotation(item, titles: titles, into: &out)
        }
        Annotations.writeTail(remove: visible.remove, to: &out)
    }

    private func annotation(_ item: JSONObject, titles: TitleFormatter, into out: inout JSONWriter) throws(MessageError) {
        let input = try AnnotationInput(item: item)
        item.storage.withUnsafeBytes { Self.write(input, in: $0, titles: titles, into: &out) }
    }

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
        let read = scanner.forEachElement { scanner in
            let start = scanner.index
            let hash = state.flatMap { Self.plainIDHash(line, at: start, seed: $0.pointee.seed) }
            if let state, let hash, let entry = state.pointee.match(hash, line, at: start) {
                if let index = state.pointee.entries[entry].output(code) {
                    scanner.index = start + state.pointee.entries[entry].input.count
                    state.pointee.entries[entry].outputs[index].bytes.withUnsafeBytes { out.raw($0) }
                    return true
                }
                // Stored, but not in this presentation: read again below (the reader took these bytes before).
            }
            guard let input = AnnotationInput.scan(&scanner) else { return false }
            let itemMark = out.bytes.count
            Self.write(input, in: line, titles: titles, into: &out)
            if let state, let cache, let hash {
                let skip = out.bytes[itemMark] == UInt8(ascii: ",") ? 1 : 0
                out.bytes.withUnsafeBytes { written in
                    state.pointee.store(hash, input: UnsafeRawBufferPointer(rebasing: line[start..<scanner.index]), presentation: code,
                                        output: UnsafeRawBufferPointer(rebasing: written[(itemMark + skip)...]),
                                        maxStations: cache.maxStations, maxBytes: cache.maxBytes)
                }
            }
            return true
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

    /// One item of `upsert` as the one-pass reader found it: in the cache (the entry whose input it
    /// equals) or read (`input`); `start..<end` are its bytes in the line, `hash` its id's table
    /// hash when it has a plain id written first (else it is not stored).
    private enum Piece {
        case cached(entry: Int, start: Int, end: Int)
        case read(AnnotationInput, start: Int, end: Int, hash: UInt64?)
    }

    private func annotationsInOnePass(_ line: UnsafeRawBufferPointer, cache state: UnsafeMutablePointer<AnnotationCache.State>?,
                                      limits cache: AnnotationCache?, into out: inout JSONWriter) -> Bool {
        var pieces: [Piece] = []
        guard let object = try? JSONObject(storage: Array(line), reading: "upsert", with: { scanner in
                  scanner.readElements(into: &pieces) { scanner in Self.piece(&scanner, cache: state) }
              }),
              let visible = try? Visible(headOf: object, readingRemove: false),
              let remove = Self.removeField(object) else { return false }
        let presentation = visible.presentation.resolved(defaults)
        return object.storage.withUnsafeBytes { bytes in
            writeAnswer(&pieces, in: bytes, presentation: presentation, cache: state, limits: cache, into: &out) { out in
                Annotations(client: visible.client, version: visible.version, full: visible.full, day: visible.day,
                            presentation: presentation, snapshot: visible.snapshot).writeHead(to: &out)
            } tail: { out in
                Self.writeTail(remove: remove, object, into: &out)
            }
        }
    }

    /// The answer to a `visible` line whose items are `pieces` (read from `bytes`): `head`, each
    /// item copied from the cache or written, `tail`; then the written items stored in the cache.
    /// False, having written nothing, when a cached item must be read for this presentation and
    /// the reader declines it.
    private func writeAnswer(_ pieces: inout [Piece], in bytes: UnsafeRawBufferPointer, presentation: ResolvedPresentation,
                             cache state: UnsafeMutablePointer<AnnotationCache.State>?, limits cache: AnnotationCache?,
                             into out: inout JSONWriter, head: (inout JSONWriter) -> Void, tail: (inout JSONWriter) -> Void) -> Bool {
        let code = presentation.cacheCode
        // Items found in the cache but not yet formatted in this presentation are read now (from
        // the same bytes the stored item was read from, so the reader takes them).
        if let state {
            for i in pieces.indices {
                guard case .cached(let entry, let start, let end) = pieces[i], state.pointee.entries[entry].output(code) == nil else { continue }
                var scanner = JSONScanner(bytes, start: start)
                guard let input = AnnotationInput.scan(&scanner) else { return false }
                pieces[i] = .read(input, start: start, end: end, hash: state.pointee.entries[entry].hash)
            }
        }
        let titles = TitleFormatter(presentation)
        head(&out)
        // What to store once every item is written (a store may empty the cache, and with it the
        // entries that later pieces copy from): hash, input bytes, output bytes.
        var stores: [(hash: UInt64, input: Range<Int>, output: Range<Int>)] = []
        for piece in pieces {
            switch piece {
            case .cached(let entry, _, _):
                if let state, let index = state.pointee.entries[entry].output(code) { out.raw(state.pointee.entries[entry].outputs[index].bytes) }
            case .read(let item, let start, let end, let hash):
                let mark = out.bytes.count
                Self.write(item, in: bytes, titles: titles, into: &out)
                guard state != nil, let hash else { continue }
                let skip = out.bytes[mark] == UInt8(ascii: ",") ? 1 : 0
                stores.append((hash, start..<end, (mark + skip)..<out.bytes.count))
            }
        }
        if let state, let cache {
            out.bytes.withUnsafeBytes { written in
                for store in stores {
                    state.pointee.store(store.hash, input: UnsafeRawBufferPointer(rebasing: bytes[store.input]), presentation: code,
                                        output: UnsafeRawBufferPointer(rebasing: written[store.output]),
                                        maxStations: cache.maxStations, maxBytes: cache.maxBytes)
                }
            }
        }
        tail(&out)
        return true
    }

    /// The `upsert` item at the scanner: the cached entry it equals (the scanner moved past it),
    /// else read by `AnnotationInput.scan`; nil when the reader does not take it.
    @inline(__always)
    private static func piece(_ scanner: inout JSONScanner, cache state: UnsafeMutablePointer<AnnotationCache.State>?) -> Piece? {
        let start = scanner.index
        let hash = state.flatMap { plainIDHash(scanner.bytes, at: start, seed: $0.pointee.seed) }
        if let state, let hash, let entry = state.pointee.match(hash, scanner.bytes, at: start) {
            scanner.index = start + state.pointee.entries[entry].input.count
            return .cached(entry: entry, start: start, end: scanner.index)
        }
        guard let input = AnnotationInput.scan(&scanner) else { return nil }
        return .read(input, start: start, end: scanner.index, hash: hash)
    }

    /// The bytes every item the filter writes starts with.
    private static let itemPrefix = Array(#"{"id":""#.utf8)

    /// The table hash of the item's id when the item at `start` begins `{"id":"` and the id is
    /// plain (no escape) and at most 256 bytes; nil otherwise, or without a cache.
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

    /// Writes one annotation (the same bytes as `Annotations.Item.write(to:field:)`, copying text
    /// that is already canonical).
    private static func write(_ item: AnnotationInput, in bytes: UnsafeRawBufferPointer, titles: TitleFormatter, into out: inout JSONWriter) {
        out.opening(#"{"id":"#)
        if let plainID = item.plainID { out.raw(UnsafeRawBufferPointer(rebasing: bytes[plainID])) } else { out.string(item.id) }
        out.continuing(#","coordinate":{"latitude":"#)
        writeNumber(item.coordinate.latitude, text: UnsafeRawBufferPointer(rebasing: bytes[item.latitudeText]), into: &out)
        out.continuing(#","longitude":"#)
        writeNumber(item.coordinate.longitude, text: UnsafeRawBufferPointer(rebasing: bytes[item.longitudeText]), into: &out)
        writeRest(temperature: item.temperature, windSpeed: item.windSpeed, windDirection: item.windDirection,
                  precipitation: item.precipitation, icon: item.icon, clusterCount: item.clusterCount, stale: item.stale, titles: titles, into: &out,
                  subtitle: item.plainName.map { .quoted(UnsafeRawBufferPointer(rebasing: bytes[$0])) } ?? .text(item.name))
    }

    /// The annotation of a cluster, as `Station.writeAnnotation(stale:titles:into:)` for a station.
    static func write(cluster: Cluster, titles: TitleFormatter, into out: inout JSONWriter) {
        out.opening(#"{"id":"#); Cluster.writeID(forKey: cluster.key, into: &out)
        out.continuing(#","coordinate":{"latitude":"#); out.number(cluster.coordinate.latitude + 0.0)
        out.continuing(#","longitude":"#); out.number(cluster.coordinate.longitude + 0.0)
        writeRest(temperature: read(cluster.temperature), windSpeed: read(cluster.windSpeed), windDirection: read(cluster.windDirection),
                  precipitation: read(cluster.precipitation), icon: cluster.icon, clusterCount: cluster.count, stale: false, titles: titles, into: &out,
                  subtitle: .text(""))
    }

    /// A value as the formatter reads it back from the filter's text: non-finite is written
    /// `null` (nil), -0 as `0`.
    @inline(__always)
    static func read(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value + 0.0
    }

    /// A station's annotation members after the coordinate's last number (closing it), and its end (`subtitle` is its name as
    /// the caller writes it); a cluster's when `clusterCount` is set (`subtitle` unused).
    @inline(__always)
    static func writeRest(temperature: Double?, windSpeed: Double?, windDirection: Double?, precipitation: Double?,
                          icon: WeatherIcon?, clusterCount: Int?, stale: Bool, titles: TitleFormatter, into out: inout JSONWriter,
                          subtitle: AnnotationSubtitle) {
        out.continuing(#"},"title":"#)
        titles.writeTitle(temperature: temperature, windSpeed: windSpeed, windDirection: windDirection, precipitation: precipitation,
                          icon: icon, into: &out)
        if let count = clusterCount {
            out.continuing(#","subtitle":"#); out.string(titles.stationsLabel(count))
            out.continuing(#","cluster":true,"count":"#); out.int(count)
        } else {
            out.continuing(#","subtitle":"#)
            switch subtitle {
            case .quoted(let text): out.raw(text)
            case .text(let name): out.string(name)
            }
        }
        switch titles.presentation.field {
        case .temperature:
            out.continuing(#","value":"#); out.number(titles.temperature(temperature).map { ($0 * 10).rounded() / 10 })
        case .precipitation:
            out.continuing(#","value":"#); out.number(precipitation)
        case .wind:
            titles.writeWind(speed: windSpeed, direction: windDirection, into: &out)
        case .conditions:
            if let icon { out.continuing(#","icon":"#); out.string(icon.rawValue) }
        }
        if stale { out.continuing(#","stale":true"#) }
        out.objectEnd()
    }

    /// Writes a number, copying the input's `text` when it is already what the writer would
    /// print (the filter's output always is): no second trip through `Double` printing.
    private static func writeNumber(_ value: Double, text: UnsafeRawBufferPointer, into out: inout JSONWriter) {
        if JSONWriter.isCanonicalShortNumber(text) {
            out.raw(text)
        } else {
            out.number(value)
        }
    }

    private func callout(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let selection = try Selection(from: object)
        let titles = TitleFormatter(selection.presentation.resolved(defaults))
        let content = selection.station.map { calloutContent($0, titles: titles, day: selection.day) }
        Callout(client: selection.client, id: selection.id, day: selection.day, reason: selection.reason, content: content,
                icon: selection.station?.details?.icon, stale: selection.stale, snapshot: selection.snapshot).write(to: &out)
    }

    /// Carries the data's provenance through, so clients can show "stored data, 3 h old".
    func copySnapshotInfo(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        try SnapshotInfo(from: object).writeMembers(to: &out)
    }
}

/// Decoding access for array elements found by `JSONObject.arrayElements`.
enum JSONDecodingAccess {
    static func string(_ storage: [UInt8], _ range: Range<Int>) -> String {
        storage.withUnsafeBytes { JSONDecoding.unescape($0, (range.lowerBound + 1)..<(range.upperBound - 1)) }
    }
}

extension Station {
    /// The annotation of this station as the formatter writes it for the filter's `visible` item
    /// of it (`isobar filter --chain-format`, which writes no `visible`): the same bytes, since
    /// every number the filter writes reads back as the same double and every string as the same
    /// text (`FormatChainTests` compares the two). Out of line, as measured. (The caller copies the
    /// record for the call, retaining its strings: perf shows it, ~10 % of the chained filter
    /// replayed; inlining, a pointer or field-by-field reads did not avoid it. BENCHMARKS.md, "The
    /// formatter chained behind the filter".)
    @inline(never)
    func writeAnnotation(stale: Bool, titles: TitleFormatter, into out: inout JSONWriter) {
        out.opening(#"{"id":"#); out.string(id)
        out.continuing(#","coordinate":{"latitude":"#); out.number(coordinate.latitude + 0.0)
        out.continuing(#","longitude":"#); out.number(coordinate.longitude + 0.0)
        FormatEngine.writeRest(temperature: FormatEngine.read(temperature), windSpeed: FormatEngine.read(windSpeed),
                               windDirection: FormatEngine.read(windDirection), precipitation: FormatEngine.read(precipitation),
                               icon: details?.icon, clusterCount: nil, stale: stale, titles: titles, into: &out, subtitle: .text(name))
    }
}

/// A station annotation's subtitle as `FormatEngine.writeRest` gets it: JSON text to copy (a plain
/// string of the filter's line, quotes included) or a name to write.
enum AnnotationSubtitle {
    case quoted(UnsafeRawBufferPointer)
    case text(String)
}
