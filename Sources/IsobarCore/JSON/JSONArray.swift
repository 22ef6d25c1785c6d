/// A validated top-level JSON array (the shape of an onX feed body).
public struct JSONArray: Sendable {
    public let storage: [UInt8]
    public let elements: [(range: Range<Int>, kind: JSONKind)]

    /// Parses `storage`, which must hold exactly one JSON array (surrounding whitespace allowed).
    public init(storage: [UInt8], maxDepth: Int = 64) throws(JSONError) {
        let failure: JSONError? = storage.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw, maxDepth: maxDepth)
            scanner.skipWhitespace()
            guard let first = scanner.peek() else { return JSONError("empty document", at: 0) }
            guard first == UInt8(ascii: "[") else {
                if first == UInt8(ascii: "{") { return JSONError("expected a JSON array, found an object", at: scanner.index) }
                return JSONError("expected a JSON array, found \(JSONScanner.describe(first))", at: scanner.index)
            }
            do {
                _ = try scanner.scanValue(depth: 0)
            } catch let error as JSONError {
                return error
            } catch {
                return JSONError("\(error)", at: 0)
            }
            scanner.skipWhitespace()
            return scanner.atEnd ? nil : JSONError("unexpected data after the array", at: scanner.index)
        }
        if let failure { throw failure }
        self.storage = storage
        let start = storage.firstIndex(of: UInt8(ascii: "[")) ?? 0
        let end = (storage.lastIndex(of: UInt8(ascii: "]")) ?? storage.count - 1) + 1
        self.elements = JSONDecoding.arrayElements(storage, start..<end)
    }

    /// The element at `range` as an object (only valid for elements of kind `.object`).
    public func object(at range: Range<Int>) -> JSONObject {
        JSONObject(storage: storage, validatedRange: range)
    }
}
