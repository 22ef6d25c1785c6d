/// `{"type":"resync",...}`: a request to resend state.
///
/// With a `client`, the filter answers with that client's full visible set (a client that saw a
/// gap in `version`). Without one, the persister and the fetcher republish their latest complete
/// snapshot of each day (a stage that started late or saw an incomplete snapshot).
public struct Resync: Sendable, Equatable {
    public var client: String?
    public var reason: String

    public init(client: String? = nil, reason: String) {
        self.client = client
        self.reason = reason
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.optionalString("client")
        if client?.isEmpty == true { client = nil }
        reason = try object.optionalString("reason") ?? ""
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("resync")
        if let client { writer.key("client"); writer.string(client) }
        writer.key("reason"); writer.string(reason)
        writer.objectEnd()
        writer.newline()
    }
}
