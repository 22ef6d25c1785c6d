/// Why the conformance kit could not use a vector file or a line.
public enum ConformanceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not one JSON value.
    case notJSON(String)
    /// A vector file lacks a field the kit needs, or has it of the wrong kind.
    case badVector(String)

    public var description: String {
        switch self {
        case .notJSON(let detail): "not JSON: \(detail)"
        case .badVector(let detail): "not a conformance vector: \(detail)"
        }
    }
}
