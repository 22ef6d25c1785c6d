/// `{"type":"visible",...}`: the filter's answer for one client, to the formatter. What the client
/// should show as stations and clusters (values in the feed-neutral units), as a full set or a diff
/// against the previous version. PROTOCOL.md "visible".
///
/// The filter writes one per changed view on its hot path, so besides the whole-message
/// ``write(to:)`` it can write the head (``writeHead(to:)``), stream the items in place and close
/// with ``writeTail(remove:to:)``: the same bytes as ``write(to:)`` without building the items.
public struct Visible: Sendable, Equatable {
    /// One element of `upsert`: a station or a cluster of stations.
    public enum Item: Sendable, Equatable {
        /// A station with every value a title needs; `stale` when older than `--stale-after`.
        case station(Station, stale: Bool)
        case cluster(Cluster)

        public var id: String {
            switch self {
            case .station(let station, _): station.id
            case .cluster(let cluster): cluster.id
            }
        }

        public init(from object: JSONObject) throws(MessageError) {
            if try object.optionalBool("cluster") == true {
                self = .cluster(try Cluster(from: object))
            } else {
                self = .station(try Station(from: object), stale: try object.optionalBool("stale") ?? false)
            }
        }

        /// The element as the filter writes it (stations without their details, the hot path, but
        /// with their `icon` where the feed gives one: the `conditions` field's title).
        public func write(to writer: inout JSONWriter) {
            writer.objectStart()
            switch self {
            case .station(let station, let stale):
                station.writeMembers(to: &writer)
                station.writeIcon(to: &writer)
                if stale { writer.key("stale"); writer.bool(true) }
            case .cluster(let cluster):
                cluster.writeMembers(to: &writer)
            }
            writer.objectEnd()
        }
    }

    public var client: String
    /// The client's annotations version this answer makes (1, 2, …; PROTOCOL.md "Versions").
    public var version: Int
    /// A full set (replace everything) rather than a diff.
    public var full: Bool
    public var day: Day
    public var snapshot: SnapshotInfo
    /// What the client asked for, passed through for the formatter.
    public var presentation: Presentation
    public var upsert: [Item]
    /// Ids (stations and clusters) to take off the map.
    public var remove: [String]

    public init(client: String, version: Int, full: Bool, day: Day, snapshot: SnapshotInfo = .none,
                presentation: Presentation = Presentation(), upsert: [Item] = [], remove: [String] = []) {
        self.client = client
        self.version = version
        self.full = full
        self.day = day
        self.snapshot = snapshot
        self.presentation = presentation
        self.upsert = upsert
        self.remove = remove
    }

    /// Reads the whole message, every item typed.
    public init(from object: JSONObject) throws(MessageError) {
        try self.init(headOf: object)
        guard let field = object.field("upsert"), field.kind == .array else { throw MessageError("field \"upsert\" must be an array") }
        var items: [Item] = []
        try object.forEachElement(field) { (element, _) throws(MessageError) in
            guard let element else { throw MessageError("\"upsert\" must hold objects") }
            items.append(try Item(from: element))
        }
        upsert = items
    }

    /// Reads everything but the `upsert` items (left empty), for a reader that streams them itself
    /// (the formatter): type-checks `upsert` as an array and reads `remove`.
    public init(headOf object: JSONObject) throws(MessageError) {
        try self.init(headOf: object, readingRemove: true)
    }

    /// ``init(headOf:)``, reading `remove` only when `readingRemove` (else left empty and
    /// unchecked, for a reader that copies it itself: the formatter's one-pass path).
    init(headOf object: JSONObject, readingRemove: Bool) throws(MessageError) {
        client = try object.requireName("client")
        guard let version = try object.optionalInt("version") else { throw MessageError("missing required field \"version\"") }
        self.version = version
        full = try object.optionalBool("full") ?? false
        day = try object.optionalEnum("day", Day.self) ?? .today
        snapshot = try SnapshotInfo(from: object)
        presentation = try Presentation(from: object)
        guard let upsertField = object.field("upsert"), upsertField.kind == .array else {
            throw MessageError("field \"upsert\" must be an array")
        }
        upsert = []
        remove = readingRemove ? try Self.readIDs(object, key: "remove") : []
    }

    /// The `remove` (or any) array of ids; absent is empty.
    static func readIDs(_ object: JSONObject, key: StaticString) throws(MessageError) -> [String] {
        guard let field = object.field(key) else { return [] }
        guard field.kind == .array else { throw MessageError("field \"\(key)\" must be an array") }
        var ids: [String] = []
        for element in object.arrayElements(field) {
            guard element.kind == .string else { throw MessageError("\"\(key)\" must hold ids (strings)") }
            ids.append(JSONDecodingAccess.string(object.storage, element.range))
        }
        return ids
    }

    public func write(to writer: inout JSONWriter) {
        writeHead(to: &writer)
        for item in upsert { item.write(to: &writer) }
        Self.writeTail(remove: remove, to: &writer)
    }

    /// Everything up to and including `"upsert":[`; the items follow, then ``writeTail(remove:to:)``.
    /// The constant runs (`{"type":"visible","client":`, `,"full":false,"day":`) go in one append
    /// each, the day as its quoted literal: the filter writes a head per update, and its keys and
    /// strings written one by one were 8.7 % of its instructions per small-step update. The same
    /// bytes, and the same comma state after each value, as `objectStart`, `key` and `string`.
    public func writeHead(to writer: inout JSONWriter) {
        writeHead(to: &writer, writingProvenance: { snapshot.writeMembers(to: &$0) })
    }

    /// ``writeHead(to:)`` with the four provenance members copied from `provenance`, the bytes
    /// `SnapshotInfo.writeMembers` wrote for them (`snapshot` is not read): the filter keeps them
    /// per snapshot (`StationSnapshot.infoMembers`) instead of printing them per update.
    func writeHead(to writer: inout JSONWriter, provenance: [UInt8]) {
        writeHead(to: &writer, writingProvenance: { $0.raw(provenance) })
    }

    @inline(__always)
    private func writeHead(to writer: inout JSONWriter, writingProvenance provenance: (inout JSONWriter) -> Void) {
        writer.opening("{\"type\":\"visible\",\"client\":")
        writer.string(client)
        writer.continuing(",\"version\":")
        writer.int(version)
        writer.continuing(full ? ",\"full\":true,\"day\":" : ",\"full\":false,\"day\":")
        let quotedDay: StaticString = switch day {
        case .today: "\"today\""
        case .tomorrow: "\"tomorrow\""
        }
        writer.raw(UnsafeBufferPointer(start: quotedDay.utf8Start, count: quotedDay.utf8CodeUnitCount))
        provenance(&writer)
        presentation.write(to: &writer)
        writer.key("upsert")
        writer.arrayStart()
    }

    /// Closes `upsert`, writes `remove` and ends the line.
    public static func writeTail<Removed: Sequence<String>>(remove: Removed, to writer: inout JSONWriter) {
        writeTail(to: &writer) { writer in for id in remove { writer.string(id) } }
    }

    /// Closes `upsert`, writes `remove` with `removed` (which writes the ids as array elements)
    /// and ends the line.
    public static func writeTail(to writer: inout JSONWriter, removed: (inout JSONWriter) -> Void) {
        writer.arrayEnd()
        writer.key("remove")
        writer.arrayStart()
        removed(&writer)
        writer.arrayEnd()
        writer.objectEnd()
        writer.newline()
    }
}
