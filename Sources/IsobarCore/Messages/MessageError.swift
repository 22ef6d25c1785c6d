/// Why a syntactically valid JSON line is not an acceptable message: the human `message` and its
/// machine-readable `code` (PROTOCOL.md, "Errors").
public struct MessageError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var code: ErrorCode
    public init(_ message: String, code: ErrorCode = .invalid) {
        self.message = message
        self.code = code
    }
    public var description: String { message }
}
