/// `favorite` (client or places stage → filter): change one entry of a client's favorites, or set
/// the whole list at once.
///
/// - `{"type":"favorite","client":"alice","id":"K1D3","on":true}`: star (`on: true`) or unstar a
///   station. Any id is accepted, known today or not: a station missing from today's feed may be
///   back tomorrow, and a favorite is the user's, not the feed's.
/// - `"place":{...}` (a place as `locations` writes it) or `"pin":{"name","latitude","longitude"}`
///   instead of `id`: a place or a dropped pin (removal needs only the place's `id` or the pin's
///   coordinate). The places stage writes the place form for a client's `bookmark` by geonameid.
/// - `{"type":"favorite","client":"alice","items":[{"id":…},{"place":{…}},{"pin":{…}}]}`: the whole
///   list, replacing what was there (an app with fixed cities); no `on`.
public struct FavoriteRequest: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        /// Add (`on`) or remove one entry.
        case one(FavoriteEntry, on: Bool)
        /// Replace the list with these entries, in this order (later duplicates dropped).
        case all([FavoriteEntry])
    }

    public var client: String
    public var change: Change

    public init(client: String, change: Change) {
        self.client = client
        self.change = change
    }

    /// A station favorite, the original form.
    public init(client: String, id: String, on: Bool) {
        self.init(client: client, change: .one(.station(id), on: on))
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        if let itemsField = object.field("items") {
            guard itemsField.kind == .array else { throw MessageError("field \"items\" must be an array", code: .fieldType) }
            guard object.field("id") == nil, object.field("place") == nil, object.field("pin") == nil else {
                throw MessageError("\"items\" replaces the whole list: it goes without \"id\", \"place\" or \"pin\"")
            }
            var entries: [FavoriteEntry] = []
            try object.forEachElement(itemsField) { (item, _) throws(MessageError) in
                guard let item else { throw MessageError("\"items\" must hold objects", code: .fieldType) }
                let entry = try FavoriteEntry(from: item)
                if !entries.contains(where: { $0.sameFavorite(as: entry) }) { entries.append(entry) }
            }
            change = .all(entries)
            return
        }
        guard let on = try object.optionalBool("on") else {
            throw MessageError("missing required field \"on\" (true adds, false removes)", code: .fieldMissing)
        }
        change = .one(try FavoriteEntry(from: object, complete: on), on: on)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("favorite")
        writer.key("client"); writer.string(client)
        switch change {
        case .one(let entry, let on):
            entry.writeMember(to: &writer)
            writer.key("on"); writer.bool(on)
        case .all(let entries):
            writer.key("items")
            writer.arrayStart()
            for entry in entries { entry.write(to: &writer) }
            writer.arrayEnd()
        }
        writer.objectEnd()
        writer.newline()
    }
}
