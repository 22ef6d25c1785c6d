/// `{"type":"select","client":"alice","id":"K1D3"}`: the client tapped a station and wants its
/// callout. `"id":null` (or no id) clears the selection.
public struct Select: Sendable, Equatable {
    public var client: String
    public var id: String?

    public init(client: String, id: String?) {
        self.client = client
        self.id = id
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        if let id = try object.optionalString("id") {
            guard !id.isEmpty else { throw MessageError("field \"id\" must not be empty (use null to clear the selection)", code: .outOfRange) }
            self.id = id
        } else {
            id = nil
        }
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("select")
        writer.key("client"); writer.string(client)
        writer.key("id"); writer.string(id)
        writer.objectEnd()
        writer.newline()
    }
}
