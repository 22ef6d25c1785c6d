/// The bus topic of a message: its `type`, plus `/` and its `client` when it has one
/// (`annotations/alice`). ZeroMQ filters by topic prefix before delivery, so a client
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
        if let clientField = object.field("client"), let client = object.string(clientField), !client.isEmpty {
            return type + "/" + client
        }
        return type
    }
}
