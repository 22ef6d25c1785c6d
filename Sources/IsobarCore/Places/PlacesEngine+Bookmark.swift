/// `bookmark` (client → places): a favorite named by a place id, or a whole list that holds place
/// ids. The filter keeps favorites but has no gazetteer, so the places stage looks each id up and
/// writes the request on as a `favorite` with the place's name and coordinate (topic
/// `favorite/<pp>/<client>`, the client's filter shard), the way `weather` becomes `spot`.
///
/// - `{"type":"bookmark","client":"alice","place":1835848,"on":true}` → `{"type":"favorite",
///   "client":"alice","place":{…Seoul…},"on":true}`
/// - `{"type":"bookmark","client":"alice","items":[{"place":1835848},{"id":"K1D3"},{"pin":{…}}]}` →
///   `{"type":"favorite","client":"alice","items":[{"place":{…}},{"id":"K1D3"},{"pin":{…}}]}`
///   (station and pin items, and places already given as objects, pass as they are).
///
/// An unknown id, or a place id without a gazetteer, is one `error` and nothing goes to the filter.
extension PlacesEngine {
    func bookmark(_ object: JSONObject, into out: inout JSONWriter) throws(MessageError) {
        let client = try object.requireName("client")
        if let itemsField = object.field("items") {
            guard itemsField.kind == .array else { throw MessageError("field \"items\" must be an array", code: .fieldType) }
            var entries: [FavoriteEntry] = []
            try object.forEachElement(itemsField) { (item, _) throws(MessageError) in
                guard let item else { throw MessageError("\"items\" must hold objects", code: .fieldType) }
                let entry = try resolvedEntry(item)
                if !entries.contains(where: { $0.sameFavorite(as: entry) }) { entries.append(entry) }
            }
            FavoriteRequest(client: client, change: .all(entries)).write(to: &out)
            return
        }
        guard let on = try object.optionalBool("on") else {
            throw MessageError("missing required field \"on\" (true adds, false removes)", code: .fieldMissing)
        }
        FavoriteRequest(client: client, change: .one(try resolvedEntry(object, complete: on), on: on)).write(to: &out)
    }

    /// An entry whose `place` may be a bare geonameid, looked up in the gazetteer. `complete`
    /// false (a removal): a pin needs only its coordinate.
    private func resolvedEntry(_ object: JSONObject, complete: Bool = true) throws(MessageError) -> FavoriteEntry {
        guard let field = object.field("place"), field.kind == .number else { return try FavoriteEntry(from: object, complete: complete) }
        guard object.field("id") == nil, object.field("pin") == nil else {
            throw MessageError("a favorite needs exactly one of \"id\" (a station), \"place\" or \"pin\"")
        }
        guard let id = try object.optionalInt("place"), id > 0, id <= Int(Int32.max) else {
            throw MessageError("field \"place\" must be a positive GeoNames id", code: .outOfRange)
        }
        guard let gazetteer else { throw MessageError(unavailable) }
        guard let place = gazetteer.place(id: id) else { throw MessageError("unknown place id \(id)") }
        return .place(place)
    }
}
