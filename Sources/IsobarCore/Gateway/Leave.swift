/// `{"type":"leave","client":"alice"}`: a client is gone (its WebSocket closed); the filter
/// forgets it at once instead of waiting for the idle timeout (topic `leave/<client>`).
///
/// `gateway` names the gateway the client left: a filter ignores a leave from a gateway that no
/// longer hosts the client (the app reconnected through another gateway before the old one's
/// leave arrived).
public struct Leave: Sendable, Equatable {
    public var client: String
    public var gateway: String?

    public init(client: String, gateway: String? = nil) {
        self.client = client
        self.gateway = gateway
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        gateway = try object.optionalString("gateway")
        if gateway?.isEmpty == true { gateway = nil }
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("leave")
        writer.key("client"); writer.string(client)
        if let gateway { writer.key("gateway"); writer.string(gateway) }
        writer.objectEnd()
        writer.newline()
    }
}
