/// `{"type":"error","stage":...,"message":...,"excerpt":...}`: a rejected line or a failure.
///
/// Every stage answers a bad line with exactly one of these and goes on with the next line.
public struct ErrorMessage: Sendable, Equatable {
    public var stage: String
    public var message: String
    public var excerpt: String

    public init(stage: String, message: String, excerpt: String) {
        self.stage = stage
        self.message = message
        self.excerpt = excerpt
    }

    /// An error about `line`, with a printable excerpt of it.
    public init(stage: String, message: String, line: UnsafeRawBufferPointer) {
        self.init(stage: stage, message: message, excerpt: LineSplitter.excerpt(line))
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("error")
        writer.key("stage"); writer.string(stage)
        writer.key("message"); writer.string(message)
        writer.key("excerpt"); writer.string(excerpt)
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
