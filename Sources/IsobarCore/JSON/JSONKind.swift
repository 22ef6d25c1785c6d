/// The kind of a JSON value, known after scanning without decoding it.
public enum JSONKind: UInt8, Sendable, CustomStringConvertible {
    case string, number, object, array, bool, null

    public var description: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .object: "an object"
        case .array: "an array"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
