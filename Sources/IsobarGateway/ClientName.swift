/// The name a WebSocket connection is known by on the bus (`annotations/<name>`).
///
/// A name from the URL (`?client=NAME`) or a token file must be 1...64 bytes of `[A-Za-z0-9._-]`:
/// short, safe inside a topic and a log line, and never containing `/` (which would make the
/// topic `annotations/a/b` ambiguous). Connections without one get `web-` plus 8 random hex digits.
public enum ClientName {
    /// Longest accepted name, in bytes.
    public static let maxLength = 64

    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...maxLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// A fresh name such as `web-3fa9c01d`.
    public static func generate() -> String {
        "web-" + hex8(UInt32.random(in: .min ... .max))
    }

    static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
