/// Why a line or document is not acceptable JSON, and where.
///
/// `offset` is the byte position in the input where the problem was found, so an
/// error message can point a user at it.
public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var offset: Int

    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at byte \(offset)" }
}
