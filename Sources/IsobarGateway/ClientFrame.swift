import IsobarCore

/// One text frame from a map client, checked and made ready for the bus.
///
/// Apps send client-contract messages without `client`; the connection's name is filled in here,
/// so an app can never speak for another client. A frame that is not a JSON object, has no string
/// `type`, names a different `client`, has a type a client may not send, or is not a valid
/// viewport throws a ``MessageError`` that becomes one `error` frame back to the app.
public enum ClientFrame: Sendable {
    /// A valid viewport, `client` filled in; the caller sets `gateway`, `ref` and `version`.
    case viewport(Viewport)
    /// Any other accepted message as the JSON line to publish, `client` filled in, no raw newline.
    case line([UInt8])

    /// The types an app may send besides `viewport`, published as they are with `client` filled
    /// in: the table's `clientSends` rows (``MessageTypes``).
    public static let passThroughTypes = passThrough(in: .standard)

    static func passThrough(in types: MessageTypes) -> Set<String> { Set(types.clientSent).subtracting(["viewport"]) }

    public static func parse(_ bytes: [UInt8], client: String, types: MessageTypes = .standard) throws(MessageError) -> ClientFrame {
        let object: JSONObject
        do {
            object = try JSONObject(storage: bytes)
        } catch {
            throw MessageError("not a JSON object: \(error)", code: .notJSON)
        }
        guard let typeField = object.field("type") else { throw MessageError("missing required field \"type\"", code: .fieldMissing) }
        guard let type = object.string(typeField), !type.isEmpty else {
            throw MessageError("field \"type\" must be a non-empty string")
        }
        if let clientField = object.field("client") {
            guard object.string(clientField) == client else {
                throw MessageError("field \"client\" does not match this connection's name \"\(client)\"; leave it out")
            }
        }
        guard types[type]?.clientSends == true else {
            throw MessageError("unknown type \"\(type.prefix(40))\"; a client sends \(Self.sendable(types))")
        }
        if type == "viewport" {
            // Read as it is, with the connection's name: the gateway writes the line anew.
            return .viewport(try Viewport(from: object, client: client))
        }
        return .line(withClient(object, client: client))
    }

    /// The object's bytes with `"client":NAME` as its first member when it had none, and every CR
    /// or LF turned into a space: in a valid JSON text they can only be whitespace between tokens,
    /// and a raw newline would split the line in two on the bus.
    static func withClient(_ object: JSONObject, client: String) -> [UInt8] {
        let raw = object.rawBytes
        var out: [UInt8] = []
        out.reserveCapacity(raw.count + client.utf8.count + 16)
        var rest = raw[...]
        if object.field("client") == nil, let open = raw.firstIndex(of: UInt8(ascii: "{")) {
            out.append(contentsOf: raw[raw.startIndex...open])
            var writer = JSONWriter()
            writer.key("client"); writer.string(client)
            out.append(contentsOf: writer.bytes)
            out.append(UInt8(ascii: ","))  // the object has at least "type" after this
            rest = raw[(open + 1)...]
        }
        for byte in rest {
            out.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte)
        }
        return out
    }

    /// "viewport, select, ... or weather": what the refusal of an unknown type lists.
    static func sendable(_ types: MessageTypes) -> String {
        let names = types.clientSent
        guard names.count > 1, let last = names.last else { return names.first ?? "nothing" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}
