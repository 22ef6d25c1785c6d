/// The bus topic of a message: its `type`, plus `/` and its `client` when it has one
/// (`annotations/alice`); a message a client sends to the filter also carries the client's
/// partition (`viewport/07/alice`, ``ClientPartition``). ZeroMQ filters by topic prefix before delivery, so a client
/// subscribed to `annotations/alice` never receives other clients' traffic. (Prefix matching
/// also matches `annotations/alice2`; subscribers compare the topic frame exactly.)
public enum Topic {
    /// nil when the line is not a JSON object with a string `type` (the same scan as the plug's,
    /// `TopicDeriver`, without building a `JSONObject`).
    public static func derive(fromLine line: UnsafeRawBufferPointer) -> String? {
        var deriver = TopicDeriver()
        return deriver.derive(line) ? String(decoding: deriver.topic, as: UTF8.self) : nil
    }

    public static func derive(from object: JSONObject) -> String? {
        guard let typeField = object.field("type"), let type = object.string(typeField), !type.isEmpty else { return nil }
        let client = object.field("client").flatMap { object.string($0) }
        return of(type: type, client: client)
    }

    /// The topic of a message of `type` for `client` (nil or empty: none). Messages a client
    /// sends to the filter (`perPartition` in ``MessageTypes``) carry the client's partition between
    /// type and client, `viewport/07/alice`, so filter shards subscribe to their partitions only.
    public static func of(type: String, client: String?, types: MessageTypes = .standard) -> String {
        guard let client, !client.isEmpty else { return type }
        if types.isRouted(type) {
            return type + "/" + ClientPartition.label(ClientPartition.of(client)) + "/" + client
        }
        return type + "/" + client
    }
}
