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

    /// Writes one annotation (the same bytes as `Annotations.Item.write(to:field:)`, copying text
    /// that is already canonical).
    static func write(_ item: AnnotationInput, in bytes: UnsafeRawBufferPointer, titles: TitleFormatter, into out: inout JSONWriter) {
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
