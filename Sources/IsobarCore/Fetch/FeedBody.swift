/// A feed body read once as JSON: a single response object or an array of them (the
/// per-location APIs answer one place at a time, so a source may hold many answers).
///
/// Each format's parser walks `elements`; `refuse` makes the one error that turns a whole body
/// away, naming the format that was expected, so a broken feed never replaces good data.
struct FeedBody {
    struct Element {
        let object: JSONObject?
        let kind: JSONKind
        let excerpt: String
    }

    let elements: [Element]
    let isArray: Bool
    private static let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]

    init(_ bytes: [UInt8], expected: String) throws(MessageError) {
        let first = bytes.first { !Self.whitespace.contains($0) }
        if first == UInt8(ascii: "[") {
            let array: JSONArray
            do { array = try JSONArray(storage: bytes) } catch { throw Self.refusal(expected, "\(error)") }
            guard !array.elements.isEmpty else { throw MessageError("feed body is an empty array; keeping the previous snapshot") }
            elements = array.elements.map { element in
                Element(object: element.kind == .object ? array.object(at: element.range) : nil, kind: element.kind,
                        excerpt: Self.excerpt(array.storage[element.range]))
            }
            isArray = true
        } else {
            let object: JSONObject
            do { object = try JSONObject(storage: bytes) } catch { throw Self.refusal(expected, "\(error)") }
            elements = [Element(object: object, kind: .object, excerpt: Self.excerpt(object.rawBytes))]
            isArray = false
        }
    }

    /// Refuses the body unless at least one element has the format's shape (`matches`).
    func require(_ expected: String, _ matches: (JSONObject) -> Bool) throws(MessageError) {
        guard elements.contains(where: { $0.object.map(matches) ?? false }) else {
            throw Self.refusal(expected, isArray ? "no element has its shape" : "the object does not have its shape")
        }
    }

    /// Each element read by `record` into one feed (an element that is not an object, or whose
    /// `record` throws, rejected alone), or the refusal of a body with no valid element.
    func collect(stage: String, _ record: (JSONObject, inout [String]) throws(MessageError) -> Station) throws(MessageError) -> ParsedFeed {
        var collector = FeedCollector(stage: stage)
        collector.reserve(records: elements.count)
        for element in elements {
            guard let object = element.object else { collector.rejectNonObject(element.kind, excerpt: element.excerpt); continue }
            collector.add(excerpt: element.excerpt) { (warnings: inout [String]) throws(MessageError) in
                try record(object, &warnings)
            }
        }
        return try collector.finish()
    }

    static func refusal(_ expected: String, _ why: String) -> MessageError {
        MessageError("feed body is not \(expected): \(why); keeping the previous snapshot")
    }

    static func excerpt(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix(80), as: UTF8.self)
    }
}

extension JSONObject {
    /// True when every key is present (whatever its value): how a format's shape is recognised.
    func has(_ keys: StaticString...) -> Bool { keys.allSatisfy { field($0) != nil } }
}
