/// `{"type":"warning",...}`: a data-quality note that did not stop processing
/// (for example tomorrow's 105 % chance of precipitation, clamped to 100).
public struct WarningMessage: Sendable, Equatable {
    public var stage: String
    public var id: String
    public var message: String

    public init(stage: String, id: String, message: String) {
        self.stage = stage
        self.id = id
        self.message = message
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("warning")
        writer.key("stage"); writer.string(stage)
        writer.key("id"); writer.string(id)
        writer.key("message"); writer.string(message)
        writer.objectEnd()
        writer.newline()
    }
}
