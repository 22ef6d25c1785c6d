/// `{"type":"favorite","client":"alice","id":"K1D3","on":true}`: the client stars (`on: true`) or
/// unstars (`on: false`) a station. Any id is accepted, known today or not: a station missing from
/// today's feed may be back tomorrow, and a favorite is the user's, not the feed's.
public struct FavoriteRequest: Sendable, Equatable {
    public var client: String
    public var id: String
    public var on: Bool

    public init(client: String, id: String, on: Bool) {
        self.client = client
        self.id = id
        self.on = on
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        id = try object.requireName("id")
        guard let on = try object.optionalBool("on") else { throw MessageError("missing required field \"on\" (true adds, false removes)") }
        self.on = on
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("favorite")
        writer.key("client"); writer.string(client)
        writer.key("id"); writer.string(id)
        writer.key("on"); writer.bool(on)
        writer.objectEnd()
        writer.newline()
    }
}
