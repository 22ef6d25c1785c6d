/// Why a syntactically valid JSON line is not an acceptable message.
public struct MessageError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
