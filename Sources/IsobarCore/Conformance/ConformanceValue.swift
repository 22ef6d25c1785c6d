/// A JSON value as the conformance kit compares it: numbers as numbers (46 equals 46.0), objects
/// as unordered keys. The kit needs whole values (arrays of objects, nested details) where the
/// stages' scanner (`JSONObject`) reads only the fields it is asked for.
public indirect enum ConformanceValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ConformanceValue])
    case object([String: ConformanceValue])

    /// The value of `key` when this is an object.
    public subscript(key: String) -> ConformanceValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    /// The string, when this is one.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The message `type` of an output line, as the difference report names it (`?` for a line
    /// that is not an object, `None` for an object without a string `type`).
    var typeLabel: String {
        guard case .object = self else { return "?" }
        return self["type"]?.string ?? "None"
    }

    /// Compact JSON text, non-ASCII characters as they are, whole numbers without a fraction
    /// (for the difference report; the input lines are written from the vector's own bytes).
    public var json: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
            return String(value)
        case .string(let text): return Self.quoted(text)
        case .array(let items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.keys.sorted().map { Self.quoted($0) + ":" + (fields[$0] ?? .null).json }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
