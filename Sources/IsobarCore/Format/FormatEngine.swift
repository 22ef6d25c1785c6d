/// The formatter: turns the filter's `visible` sets into the client contract's `annotations`,
/// `selection` into `callout`, `closest`/`matches` into `place`/`results` and `pinned` into
/// `starred`. Stateless per client (the filter owns versions and
/// selections), so it can be restarted or replaced at any moment.
public struct FormatEngine: Sendable {
    public static let stage = "format"
    /// The topic prefixes the formatter subscribes to on the bus: the filter's per-client outputs.
    public static let subscriptions = ["visible", "selection", "closest", "matches", "pinned", "particulars"]
    /// Used for whatever a client's viewport did not specify.
    public var defaults: ResolvedPresentation

    public init(defaults: ResolvedPresentation = ResolvedPresentation()) {
        self.defaults = defaults
    }

    public func handle(line: UnsafeRawBufferPointer, into out: inout JSONWriter) {
        let object: JSONObject
        do {
            object = try JSONObject(parsing: line)
        } catch {
            ErrorMessage(stage: Self.stage, message: "not a JSON object: \(error)", line: line).write(to: &out)
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
            default:
                out.raw(object.rawBytes)
                out.newline()
            }
        } catch {
            out.truncate(to: mark)  // drop a half-written message
            ErrorMessage(stage: Self.stage, message: error.message, line: line, client: ErrorMessage.client(of: object)).write(to: &out)
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
        let isCluster = try item.optionalBool("cluster") ?? false
        let idField = item.field("id")
        let plainID = Self.plainString(item, idField, maxLength: 256)
        let id = plainID == nil ? try item.requireName("id") : ""
        let coordinate = try Coordinate(from: item)
        let temperature = try item.optionalNumber("temperature")
        let windSpeed = try item.optionalNumber("windSpeed")
        let windDirection = try item.optionalNumber("windDirection")
        let precipitation = try item.optionalNumber("precipitation")
        out.objectStart()
        out.key("id")
        if let plainID { out.raw(plainID) } else { out.string(id) }
        out.key("coordinate"); Self.writeCoordinate(coordinate, from: item, into: &out)
        out.key("title")
        out.string(titles.title(temperature: temperature, windSpeed: windSpeed, windDirection: windDirection, precipitation: precipitation))
        if isCluster {
            guard let count = try item.optionalInt("count"), count > 0 else { throw MessageError("a cluster needs a positive \"count\"") }
            out.key("subtitle"); out.string(titles.stationsLabel(count))
            out.key("cluster"); out.bool(true)
            out.key("count"); out.int(count)
        } else {
            out.key("subtitle")
            if let name = Self.plainString(item, item.field("name"), maxLength: .max) {
                out.raw(name)
            } else {
                out.string(try item.optionalString("name") ?? "")
            }
        }
        switch titles.presentation.field {
        case .temperature:
            out.key("value"); out.number(titles.temperature(temperature).map { ($0 * 10).rounded() / 10 })
        case .precipitation:
            out.key("value"); out.number(precipitation)
        case .wind:
            titles.writeWind(speed: windSpeed, direction: windDirection, into: &out)
        }
        if try item.optionalBool("stale") == true { out.key("stale"); out.bool(true) }
        out.objectEnd()
    }

    /// Writes the (validated) coordinate, copying each number's text when it is already what the
    /// writer would print (the filter's output always is): no second trip through `Double` printing.
    private static func writeCoordinate(_ coordinate: Coordinate, from item: JSONObject, into out: inout JSONWriter) {
        out.objectStart()
        writeNumber("latitude", coordinate.latitude, from: item, into: &out)
        writeNumber("longitude", coordinate.longitude, from: item, into: &out)
        out.objectEnd()
    }

    /// Writes `key: value`, copying the input's text for `key` when it is already canonical.
    private static func writeNumber(_ key: StaticString, _ value: Double, from item: JSONObject, into out: inout JSONWriter) {
        out.key(key)
        if let field = item.field(key), JSONWriter.isCanonicalShortNumber(item.rawValue(field)) {
            out.raw(item.rawValue(field))
        } else {
            out.number(value)
        }
    }

    /// A non-empty string member without escapes, as its quoted bytes, to be copied to the output
    /// as is (it was validated with the line, and needs no escaping); nil for anything else, which
    /// takes the decoding path and its checks and messages.
    private static func plainString(_ item: JSONObject, _ field: JSONField?, maxLength: Int) -> ArraySlice<UInt8>? {
        guard let field, field.kind == .string, field.valueRange.count > 2, field.valueRange.count - 2 <= maxLength else { return nil }
        let raw = item.storage[field.valueRange]
        // (DEL is written escaped by JSONWriter: such a string takes the writer's path too.)
        return raw.contains { $0 == UInt8(ascii: "\\") || $0 == 0x7F } ? nil : raw
    }

    private func callout(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let selection = try Selection(from: object)
        let titles = TitleFormatter(selection.presentation.resolved(defaults))
        let content = selection.station.map { calloutContent($0, titles: titles, day: selection.day) }
        Callout(client: selection.client, id: selection.id, day: selection.day, reason: selection.reason, content: content,
                stale: selection.stale, snapshot: selection.snapshot).write(to: &out)
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
