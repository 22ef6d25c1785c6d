/// `{"type":"error","stage":...,"message":...,"excerpt":...}`: a rejected line or a failure.
///
/// Every stage answers a bad line with exactly one of these and goes on with the next line. An
/// error about a message that names a `client` carries that client, so its topic is
/// `error/<client>` and the client (or its gateway) receives it.
public struct ErrorMessage: Sendable, Equatable {
    public var stage: String
    public var message: String
    public var excerpt: String
    /// The client the bad message came from or was for, when it named one.
    public var client: String?
    /// What kind of error it is, for programs (`message` is for people).
    public var code: ErrorCode

    public init(stage: String, message: String, excerpt: String, client: String? = nil, code: ErrorCode = .invalid) {
        self.stage = stage
        self.message = message
        self.excerpt = excerpt
        self.client = client
        self.code = code
    }

    /// An error about `line`, with a printable excerpt of it.
    public init(stage: String, message: String, line: UnsafeRawBufferPointer, client: String? = nil, code: ErrorCode = .invalid) {
        self.init(stage: stage, message: message, excerpt: LineSplitter.excerpt(line), client: client, code: code)
    }

    /// An error about `line` for a rejected message: its text and code.
    public init(stage: String, _ error: MessageError, line: UnsafeRawBufferPointer, client: String? = nil) {
        self.init(stage: stage, message: error.message, line: line, client: client, code: error.code)
    }

    /// The `client` a bad message names, if it is a usable client name (a non-empty string of at
    /// most 256 bytes without `/`): whom to tell.
    public static func client(of object: JSONObject) -> String? {
        guard let name = try? object.optionalString("client"), !name.isEmpty, name.utf8.count <= 256,
              !name.utf8.contains(UInt8(ascii: "/")) else { return nil }
        return name
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("error")
        writer.key("stage"); writer.string(stage)
        writer.key("message"); writer.string(message)
        writer.key("excerpt"); writer.string(excerpt)
        if let client { writer.key("client"); writer.string(client) }
        writer.key("code"); writer.string(code.rawValue)
        writer.objectEnd()
        writer.newline()
    }

    /// The message as one NDJSON line without the trailing newline.
    public var jsonLine: String {
        var writer = JSONWriter()
        write(to: &writer)
        writer.bytes.removeLast()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
