import Foundation
import IsobarCore

/// Fuzz target `client`: a whole NDJSON stream of `annotations` messages (the input) applied in
/// order to one client's `AnnotationSet` twice: through the one-pass reader as received
/// (`apply(storage:)`), and through the general reader on the parsed line (`apply(_:)` on a
/// `JSONObject`). After every line both must give the same outcome or the same error, and hold
/// the same set (items, version, day, field, source, fetchedAt, broken).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClient(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var onePass = AnnotationSet()
    var general = AnnotationSet()
    var splitter = LineSplitter()
    let take: (LineEvent) -> Void = { event in
        guard case .line(let line) = event else { return }
        let storage = Array(line)
        let a: String
        do throws(MessageError) { a = "\(try onePass.apply(storage: storage))" } catch { a = "error: \(error.message)" }
        let b: String
        do {
            let object = try JSONObject(storage: storage)
            do throws(MessageError) { b = "\(try general.apply(object))" } catch { b = "error: \(error.message)" }
        } catch {
            b = "error: not a JSON object: \(error)"
        }
        Invariant.require(a == b, "outcomes differ: one pass \(a), general \(b)")
        Invariant.require(onePass.items == general.items, "the two readers hold different items")
        Invariant.require(onePass.version == general.version && onePass.broken == general.broken,
                          "versions differ: \(onePass.version)/\(onePass.broken) against \(general.version)/\(general.broken)")
        Invariant.require(onePass.day == general.day && onePass.field == general.field && onePass.source == general.source
                          && onePass.fetchedAt == general.fetchedAt, "the two readers hold different presentations")
    }
    splitter.append(UnsafeRawBufferPointer(start: data, count: size), take)
    splitter.finish(take)
    return 0
}
