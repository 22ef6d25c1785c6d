import Foundation
import IsobarCore

/// Fuzz target `format`: a whole NDJSON stream (the input) through `FormatEngine`, the way
/// `isobar format` reads it. Every line it writes must be a JSON object with a string `type`
/// (Foundation reads it), and the annotations a client builds from its `annotations` messages
/// must hold the ids of the items the `visible` messages it was given hold. And every line gives
/// the same bytes with the one-pass `visible` reader as through the general path.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormat(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let format = FormatEngine()
    var general = FormatEngine()
    general.onePass = false
    var splitter = LineSplitter()
    var visible = ShownSets(type: "visible", strict: false)
    var annotations = ShownSets(type: "annotations", strict: false)
    let take: (LineEvent) -> Void = { event in
        guard case .line(let line) = event else { return }
        var out = JSONWriter()
        format.handle(line: line, into: &out)
        var reference = JSONWriter()
        general.handle(line: line, into: &reference)
        Invariant.require(out.bytes == reference.bytes, "the one-pass reader and the general path disagree")
        let written = OutputLines.requireValid(out.bytes, from: "format")
        // Only a visible message the formatter accepted (it answered with annotations) counts.
        guard written.contains(where: { $0["type"] as? String == "annotations" }),
              let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return }
        visible.apply(object)
        for answer in written { annotations.apply(answer) }
    }
    splitter.append(UnsafeRawBufferPointer(start: data, count: size), take)
    splitter.finish(take)
    for (client, items) in visible.sets {
        Invariant.require(Set(items.keys) == Set((annotations.sets[client] ?? [:]).keys),
                          "\(client): annotations hold other ids than the visible messages")
    }
    return 0
}
