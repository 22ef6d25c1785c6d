import Foundation
import IsobarCore

/// Fuzz target `json`: the project's JSON scanner (`JSONObject`, `JSONArray`) on any bytes.
///
/// - Round trip: an accepted object, decoded in full and written with `JSONWriter`, parses again to
///   the same value (member order included).
/// - Differential: Foundation's `JSONSerialization` must accept what the scanner accepts, with the
///   same value, and may accept more only for the reasons the scanner documents (Fuzz/README.md,
///   "Known disagreements"). `JSONArray` and `JSONObject` must agree with each other.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkObject(bytes)
    checkArray(bytes)
    return 0
}

private func foundationReading(_ bytes: [UInt8]) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(bytes))
}

private func checkObject(_ bytes: [UInt8]) {
    let object: JSONObject
    do {
        object = try JSONObject(storage: bytes)
    } catch {
        if let theirs = foundationReading(bytes), theirs is [String: Any] {
            Invariant.require(KnownDisagreement.foundationReads(bytes, rejectedWith: error) != nil,
                              "scanner rejects an object Foundation reads: \(error)")
        }
        return
    }
    let value = JSONValue(object)
    var writer = JSONWriter()
    value.write(to: &writer)
    let again: JSONObject
    do {
        again = try JSONObject(storage: writer.bytes)
    } catch {
        Invariant.fail("the writer's output of an accepted object does not parse: \(error)")
    }
    Invariant.require(JSONValue(again) == value, "round trip through JSONWriter changed the value")
    OutputLines.requireObjectText(writer.bytes)
    if let theirs = foundationReading(bytes) {
        Invariant.require(value.matches(theirs), "scanner and Foundation read different values")
    } else if KnownDisagreement.foundationRefuses(bytes) == nil {
        Invariant.fail("scanner accepts an object Foundation rejects")
    }
}

private func checkArray(_ bytes: [UInt8]) {
    let array: JSONArray
    do {
        array = try JSONArray(storage: bytes)
    } catch {
        if let theirs = foundationReading(bytes), theirs is [Any] {
            Invariant.require(KnownDisagreement.foundationReads(bytes, rejectedWith: error) != nil,
                              "scanner rejects an array Foundation reads: \(error)")
        }
        return
    }
    // The same text as a member: the two entry points must agree on it, element by element.
    let wrapped = Array("{\"v\":".utf8) + bytes + [UInt8(ascii: "}")]
    let object: JSONObject
    do {
        object = try JSONObject(storage: wrapped, maxDepth: 65)
    } catch {
        Invariant.fail("JSONArray accepts text that JSONObject rejects as a member: \(error)")
    }
    guard let field = object.fields.first, case .array(let elements) = JSONValue(field, in: object) else {
        Invariant.fail("an accepted array is not an array member")
    }
    Invariant.require(elements.count == array.elements.count, "JSONArray found \(array.elements.count) elements, the member \(elements.count)")
    for (element, value) in zip(array.elements, elements) where element.kind == .object {
        Invariant.require(JSONValue(array.object(at: element.range)) == value, "JSONArray's object element differs")
    }
    if let theirs = foundationReading(bytes) {
        Invariant.require(JSONValue.array(elements).matches(theirs), "scanner and Foundation read different arrays")
    } else if KnownDisagreement.foundationRefuses(bytes) == nil {
        Invariant.fail("scanner accepts an array Foundation rejects")
    }
}
