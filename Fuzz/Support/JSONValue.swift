import Foundation
import IsobarCore

/// A JSON value decoded in full from the project's lazy `JSONObject`, so two parses (or a parse
/// and Foundation's) can be compared value for value. Objects keep their member order: the
/// project's writer must keep it too.
indirect enum JSONValue: Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([Member])

    struct Member: Equatable {
        var key: String
        var value: JSONValue
    }

    /// Every member of `object`, decoded through the public lookup API (`string`, `number`,
    /// `object`, `arrayElements`), which is what the stages use.
    init(_ object: JSONObject) {
        var members: [Member] = []
        for (field, key) in zip(object.fields, object.keys) {
            members.append(Member(key: key, value: JSONValue(field, in: object)))
        }
        self = .object(members)
    }

    init(_ field: JSONField, in object: JSONObject) {
        switch field.kind {
        case .string:
            guard let text = object.string(field) else { Invariant.fail("string member without a string") }
            self = .string(text)
        case .number:
            guard let number = object.number(field) else { Invariant.fail("number member without a number") }
            Invariant.require(number.isFinite, "accepted number \(String(decoding: object.rawValue(field), as: UTF8.self)) reads as \(number)")
            self = .number(number)
        case .bool:
            guard let flag = object.bool(field) else { Invariant.fail("bool member without a bool") }
            self = .bool(flag)
        case .null:
            self = .null
        case .object:
            guard let nested = object.object(field) else { Invariant.fail("object member without an object") }
            self = JSONValue(nested)
        case .array:
            self = .array(object.arrayElements(field).map { element in
                JSONValue.element(element.range, element.kind, in: object)
            })
        }
    }

    /// An array element. The public API decodes only object elements directly; any other element
    /// is read by parsing `{"v":ELEMENT}` (its bytes were validated with the document, so this
    /// parse must succeed).
    private static func element(_ range: Range<Int>, _ kind: JSONKind, in object: JSONObject) -> JSONValue {
        if kind == .object { return JSONValue(object.object(at: range)) }
        let wrapped = Array("{\"v\":".utf8) + object.storage[range] + [UInt8(ascii: "}")]
        let inner: JSONObject
        do {
            inner = try JSONObject(storage: wrapped, maxDepth: 130)
        } catch {
            Invariant.fail("an element of an accepted array does not parse on its own: \(error)")
        }
        guard let field = inner.fields.first else { Invariant.fail("wrapped element has no member") }
        return JSONValue(field, in: inner)
    }

    /// Writes the value with the project's `JSONWriter`.
    func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .number(let number): writer.number(number)
        case .bool(let flag): writer.bool(flag)
        case .null: writer.null()
        case .array(let elements):
            writer.arrayStart()
            for element in elements { element.write(to: &writer) }
            writer.arrayEnd()
        case .object(let members):
            writer.objectStart()
            for member in members {
                writer.key(text: member.key)
                member.value.write(to: &writer)
            }
            writer.objectEnd()
        }
    }

    /// Whether Foundation's reading of the same text (`JSONSerialization` output) is this value.
    /// Numbers may differ in the last bits (Foundation may go through `Decimal`); strings compare
    /// by Unicode scalars, so a difference in normalization counts.
    func matches(_ other: Any) -> Bool {
        switch self {
        case .string(let text):
            guard let theirs = other as? String else { return false }
            return text.unicodeScalars.elementsEqual(theirs.unicodeScalars)
        case .number(let number):
            guard let theirs = (other as? NSNumber)?.doubleValue else { return false }
            return theirs == number || abs(theirs - number) <= 1e-12 * max(1, abs(number))
        case .bool(let flag):
            if let theirs = other as? Bool { return theirs == flag }
            return (other as? NSNumber)?.doubleValue == (flag ? 1 : 0)
        case .null:
            return other is NSNull
        case .array(let elements):
            guard let theirs = other as? [Any], theirs.count == elements.count else { return false }
            return zip(elements, theirs).allSatisfy { $0.matches($1) }
        case .object(let members):
            guard let theirs = other as? [String: Any], theirs.count == members.count else { return false }
            return members.allSatisfy { member in theirs[member.key].map { member.value.matches($0) } ?? false }
        }
    }
}
