// fuzz-timeout: 5 (each completed snapshot builds the filter's fixed-size grids, 64,800 cells
// whatever the station count: measured 5 ms in a debug build, about 0.12 s under AddressSanitizer
// and coverage on this loaded machine; a stream of ten snapshots took 1.16 s without hanging)
import Foundation
import IsobarCore

/// Fuzz target `filter`: a whole NDJSON stream (the input) through `FilterEngine`, every line it
/// writes through `FormatEngine`, as `isobar filter | isobar format` would, on a clock that moves
/// 50 ms a line with a `tick` every eighth line.
///
/// - Every line either stage writes is a JSON object with a string `type` (Foundation reads it).
/// - At the end each client the filter still knows is asked for its full set (a `resync` with its
///   name). That set must equal what the client built from the `visible` diffs it was sent, the
///   client's annotations (built from `annotations`) must hold the same ids, and the set must be
///   right for the client's last viewport over the snapshot of its day (VisibleReference).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var run = PipelineRun()
    var splitter = LineSplitter()
    let input = UnsafeRawBufferPointer(start: data, count: size)
    splitter.append(input) { event in run.take(event) }
    splitter.finish { event in run.take(event) }
    run.checkEveryClient()
    return 0
}

/// One run of filter then format over a stream, with what the clients hold.
private struct PipelineRun {
    let filter = FilterEngine()
    let format = FormatEngine()
    var now = 1_000.0
    var lines = 0
    /// Each client's last viewport the filter accepted.
    var viewports: [String: Viewport] = [:]
    var visible = ShownSets(type: "visible")
    var annotations = ShownSets(type: "annotations")

    mutating func take(_ event: LineEvent) {
        guard case .line(let line) = event else { return }
        // A line of one of the filter's own output types passes through it unchanged (PROTOCOL.md,
        // "Who consumes what"; on the bus the filter never subscribes to them) and would then read
        // as the filter's answer, which the invariants below check: not input for this target.
        if Self.isFilterOutput(line) { return }
        now += 0.05
        lines += 1
        if let viewport = Self.viewport(in: line) { viewports[viewport.client] = viewport }
        var out = JSONWriter()
        filter.handle(line: line, now: now, into: &out)
        if lines % 8 == 0 { filter.tick(now: now, into: &out) }
        process(out.bytes)
    }

    static let outputTypes: Set<String> = ["visible", "selection", "closest", "matches", "pinned", "particulars", "tally"]

    /// Whether `line` is a JSON object whose `type` is one the filter writes.
    static func isFilterOutput(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let object = try? JSONObject(parsing: line), let type = object.field("type"),
              let name = object.string(type) else { return false }
        return outputTypes.contains(name)
    }

    /// The viewport in `line`, read as the filter reads it, or nil when the line is not one.
    static func viewport(in line: UnsafeRawBufferPointer) -> Viewport? {
        guard let object = try? JSONObject(parsing: line), let type = object.field("type"),
              object.string(type) == "viewport" else { return nil }
        return try? Viewport(from: object)
    }

    /// Checks and applies what the filter wrote, and passes each line through the formatter.
    @discardableResult
    mutating func process(_ filtered: [UInt8]) -> [[String: Any]] {
        let objects = OutputLines.requireValid(filtered, from: "filter")
        for object in objects { visible.apply(object) }
        var formatted = JSONWriter()
        for line in filtered.split(separator: 0x0A) {
            line.withUnsafeBytes { format.handle(line: $0, into: &formatted) }
        }
        for object in OutputLines.requireValid(formatted.bytes, from: "format") { annotations.apply(object) }
        return objects
    }

    mutating func checkEveryClient() {
        for (client, viewport) in viewports.sorted(by: { $0.key < $1.key }) {
            guard let snapshot = filter.snapshot(for: viewport.day) else { continue }
            let built = visible.sets[client]
            var request = JSONWriter()
            Resync(client: client, reason: "fuzz check").write(to: &request)
            now += 0.05
            var out = JSONWriter()
            request.bytes.dropLast().withUnsafeBytes { filter.handle(line: $0, now: now, into: &out) }
            let answer = process(out.bytes)
            // No full set: the filter forgot the client (it left, or idled out). Nothing to hold.
            guard answer.contains(where: { $0["type"] as? String == "visible" && $0["client"] as? String == client && $0["full"] as? Bool == true }),
                  let full = visible.sets[client] else { continue }
            Invariant.require(built == full, "\(client): the set built from diffs (\(built?.count ?? -1) items) is not the full set (\(full.count))")
            Invariant.require(Set((annotations.sets[client] ?? [:]).keys) == Set(full.keys),
                              "\(client): annotations hold other ids than the visible set")
            let ids = snapshot.stations.map(\.id)
            guard Set(ids).count == ids.count else { continue }  // a repeated id: shown once, counted twice
            let region = viewport.region
            let expected = VisibleReference.ids(of: snapshot.stations, latitude: region.center.latitude, longitude: region.center.longitude,
                                                latitudeDelta: region.latitudeDelta, longitudeDelta: region.longitudeDelta)
            if let problem = VisibleReference.mismatch(shown: full, visible: expected, limit: viewport.limit) {
                Invariant.fail("\(client): \(problem)")
            }
        }
    }
}
