/// Reads a few number members near the front of a JSON object without scanning the rest of it:
/// the gateway wants only `version`, `full` and `ageSeconds` of an `annotations` message, which the
/// formatter writes before the (possibly large) `upsert` array, and relays the bytes unchanged.
/// A boolean member reads as 1 (`true`) or 0 (`false`).
///
/// It walks the top-level members in order and stops as soon as every key was seen (or at the
/// end of the object, or at the first malformed byte: then the keys not yet seen are nil). Keys
/// are compared as written: a key spelled with escapes does not match. A key seen twice keeps its
/// first value (a message with duplicate keys is refused by every stage that parses it whole).
public enum JSONLeadingNumbers {
    /// The numbers of `keys` in the object `bytes` (nil: absent, neither a number nor a boolean, or
    /// after a fault).
    public static func read(_ bytes: [UInt8], _ keys: [StaticString]) -> [Double?] {
        var values = [Double?](repeating: nil, count: keys.count)
        var missing = keys.count
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw)
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "{") else { return }
            scanner.index += 1
            scanner.skipWhitespace()
            while missing > 0, scanner.peek() == UInt8(ascii: "\"") {
                let keyStart = scanner.index + 1
                guard let escaped = try? scanner.scanString() else { return }
                let key = UnsafeRawBufferPointer(rebasing: raw[keyStart..<(scanner.index - 1)])
                scanner.skipWhitespace()
                guard scanner.peek() == UInt8(ascii: ":") else { return }
                scanner.index += 1
                scanner.skipWhitespace()
                let valueStart = scanner.index
                guard let kind = try? scanner.scanValue(depth: 1) else { return }
                if !escaped, kind == .number || kind == .bool,
                   let k = keys.firstIndex(where: { $0.utf8CodeUnitCount == key.count && key.elementsEqual(UnsafeBufferPointer(start: $0.utf8Start, count: $0.utf8CodeUnitCount)) }),
                   values[k] == nil {
                    values[k] = kind == .bool ? (raw[valueStart] == UInt8(ascii: "t") ? 1 : 0)
                        : JSONDecoding.parseNumber(raw, valueStart..<scanner.index)
                    missing -= 1
                }
                scanner.skipWhitespace()
                guard scanner.peek() == UInt8(ascii: ",") else { return }
                scanner.index += 1
                scanner.skipWhitespace()
            }
        }
        return values
    }
}
