import ArgumentParser
import Foundation
import IsobarCore
import IsobarGateway

/// `counted`: the hot paths on fixed generated inputs, in one process, for the instruction-count
/// gate (`scripts/checks/instructions.sh`, run under `valgrind --tool=callgrind`). Each measured
/// path (snapshot load, a pan's filter + format, the gateway's relay, the client's apply, geocode
/// + reverse) runs inside its own `counted…` function, so callgrind's inclusive cost of that function
/// is the path's instruction count and the preparation (generating stations, planning pans,
/// writing the gazetteer) is not part of it. Every input is seeded and every clock fixed, so the
/// same binary does the same work each time; the printed summary (bytes written, sets held,
/// hits found) lets the gate tell "slower" from "does something else".
struct CountedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "counted",
        abstract: "Run each hot path once on fixed inputs (for callgrind: the instruction-count gate).")

    @Option(help: "Seed for generated stations and pans.")
    var seed: UInt64 = 42
    @Option(help: "Stations in the snapshot loaded (the snapshot-load path).")
    var stations = 2_000
    @Option(help: "Clients panning (pan and client-apply paths).")
    var clients = 20
    @Option(help: "Pans per client.")
    var steps = 10
    /// The defaults (spans 0.5-2°, steps up to 0.5 x span, zooms up to 2x: jumping around) are the gate's workload.
    @OptionGroup var pans: PanOptions
    @Option(help: "Bytes of `visible` items the filter keeps per snapshot (FilterOptions.itemCacheBytes; 0: none, every item written afresh).")
    var itemCacheBytes = FilterOptions().itemCacheBytes
    @Option(help: "Places in the generated gazetteer (geocode and reverse paths).")
    var places = 2_000
    @Option(help: "Geocode queries and reverse points, each.")
    var queries = 100

    /// A fixed fetch time and clock: the snapshot is accepted and nothing is stale, whatever the date.
    static let fetchedAt = 1_795_000_000.0
    static let now = fetchedAt + 60

    func run() throws {
        let generated = StationGenerator(world: syntheticWorld(), seed: seed).stations(count: stations)
        let (_, lines) = StationGenerator.snapshotLines(generated, fetchedAt: Self.fetchedAt)
        var options = FilterOptions()
        options.itemCacheBytes = itemCacheBytes
        let engine = FilterEngine(options: options, wallClock: { CountedCommand.now })
        var out = JSONWriter(capacity: 1 << 20)
        countedSnapshotLoad(engine, lines, &out)
        guard let snapshot = engine.snapshot(for: .today) else {
            throw ValidationError("the filter refused the generated snapshot: \(String(decoding: out.bytes, as: UTF8.self).prefix(300))")
        }
        var summary: [(String, String)] = [("snapshot-load", "\(snapshot.stations.count) stations, \(out.bytes.count) bytes out")]

        let viewports = planViewports(snapshot)
        let formatter = FormatEngine()
        var annotations: [(client: Int, line: [UInt8])] = []
        var visibleBytes = 0
        countedPans(engine, formatter, viewports, &annotations, &visibleBytes)
        summary.append(("pan-filter-format", "\(viewports.count) viewports, \(visibleBytes) bytes visible, \(annotations.count) annotations messages of \(annotations.reduce(0) { $0 + $1.line.count }) bytes"))

        // The gateway's relay of those messages to WebSocket clients (embedded channels, no sockets).
        let rig = try GatewayRelayRig(clients: clients)
        let topics = annotations.map { "annotations/c\($0.client)" }
        let (frames, frameBytes) = countedGatewayRelay(rig, topics, annotations)
        summary.append(("gateway-relay", "\(annotations.count) messages relayed, \(frames) bursts, \(frameBytes) bytes of frames"))

        var sets = Array(repeating: AnnotationFollower(), count: clients)
        let failed = countedClientApply(&sets, annotations)
        guard failed == 0 else { throw ValidationError("\(failed) annotations messages were not applied") }
        let differing = Self.crossCheck(annotations, clients: clients, against: sets)
        guard differing.isEmpty else { throw ValidationError("the client's one-pass sets differ from the general reader's: \(differing.joined(separator: "; "))") }
        summary.append(("client-apply", "\(sets.reduce(0) { $0 + $1.set.count }) items held, every set as the general reader's (also with detail)"))

        let dump = gazetteerDump(generated.prefix(places))
        let gazetteer = try dump.withUnsafeBytes { try Gazetteer(dump: $0, file: "counted") }
        let (names, points) = placeQueries(generated.prefix(places))
        let (found, near) = countedGeocodeReverse(gazetteer, names, points)
        summary.append(("geocode-reverse", "\(names.count) queries, \(found) hits; \(points.count) points, \(near) near a place"))

        for (path, text) in summary { print("\(path): \(text)") }
    }

    /// The client-apply path's sets (`apply(storage:)`, the one-pass reader) against the general
    /// reader's (`apply(_:)` on the parsed line) for every client, and the same two readers with
    /// `keepsDetail` (what `IsobarClient` keeps): the same items in the same order, message by
    /// message for the sets with detail; and every message read in one pass, with and without
    /// detail (`AnnotationSet.readsInOnePass`: a line the one-pass reader declines takes the
    /// general reader, the same set but slower, which comparing sets cannot see). Not counted
    /// (it runs after `countedClientApply`). What differs, or nothing.
    private static func crossCheck(_ messages: [(client: Int, line: [UInt8])], clients: Int, against sets: [AnnotationFollower]) -> [String] {
        var general = Array(repeating: AnnotationSet(), count: clients)
        var detailOnePass = Array(repeating: AnnotationSet(keepsDetail: true), count: clients)
        var detailGeneral = detailOnePass
        var differing: [String] = []
        var declined = 0, declinedWithDetail = 0
        for (n, message) in messages.enumerated() {
            guard let object = try? JSONObject(storage: message.line), (try? general[message.client].apply(object)) == .applied,
                  (try? detailGeneral[message.client].apply(object)) == .applied,
                  (try? detailOnePass[message.client].apply(storage: message.line)) == .applied else {
                differing.append("message \(n) not applied by every reader")
                continue
            }
            if detailOnePass[message.client].values != detailGeneral[message.client].values { differing.append("message \(n), with detail") }
            if !AnnotationSet.readsInOnePass(message.line) { declined += 1 }
            if !AnnotationSet.readsInOnePass(message.line, keepsDetail: true) { declinedWithDetail += 1 }
        }
        if declined > 0 || declinedWithDetail > 0 {
            differing.append("\(declined) messages declined by the one-pass reader (\(declinedWithDetail) with detail) of \(messages.count)")
        }
        for client in 0..<clients where sets[client].set.values != general[client].values { differing.append("client \(client)") }
        return differing
    }

    /// Every client's pans (the `clients` benchmark's jumping walk), interleaved as they would
    /// arrive, as viewport lines without their newline.
    private func planViewports(_ snapshot: StationSnapshot) -> [(client: Int, line: [UInt8])] {
        var planners = (0..<clients).map { pans.planner(seed: seed, client: $0) }
        var result: [(client: Int, line: [UInt8])] = []
        for _ in 0..<steps {
            for client in 0..<clients {
                var writer = JSONWriter()
                Viewport(client: "c\(client)", region: planners[client].next(in: snapshot)).write(to: &writer)
                result.append((client, Array(writer.bytes.dropLast())))
            }
        }
        return result
    }

    /// 200 made-up world stations (seeded places between 60° S and 70° N, names of two or three
    /// syllables, some of two words) that the generator jitters copies of: no file to read, so the
    /// counts do not move when the fixture CSV changes, and no CSV parsing to pay for under
    /// callgrind.
    private func syntheticWorld() -> [WorldStation] {
        let syllables = ["ka", "lo", "mi", "ran", "tes", "vo", "ber", "gan", "dor", "sil", "mar", "ne", "qui", "zu", "pel", "at"]
        var rng = SplitMix64(seed: seed &+ 5)
        func word() -> String {
            let parts = (0..<(2 + Int(rng.next() % 2))).map { _ in syllables[Int(rng.next() % UInt64(syllables.count))] }
            let joined = parts.joined()
            return joined.prefix(1).uppercased() + joined.dropFirst()
        }
        return (0..<200).map { i in
            let name = rng.next() % 3 == 0 ? word() + " " + word() : word()
            return WorldStation(id: "W\(i)", name: name, latitude: rng.uniform(-60...70), longitude: rng.uniform(-180...180))
        }
    }

    /// A GeoNames dump (19 tab-separated columns) of the stations' names and places.
    private func gazetteerDump(_ stations: ArraySlice<Station>) -> [UInt8] {
        var text = ""
        for (i, station) in stations.enumerated() {
            let name = station.name.replacingOccurrences(of: "\t", with: " ")
            let columns = ["\(i + 1)", name, name, "", "\(station.coordinate.latitude)", "\(station.coordinate.longitude)",
                           "P", "PPL", "US", "", "CA", "", "", "", "\(1_000 + i % 5_000)", "", "", "America/Los_Angeles", "2024-01-01"]
            text += columns.joined(separator: "\t") + "\n"
        }
        return Array(text.utf8)
    }

    /// Name prefixes of stations (as typed) and points a little off stations.
    private func placeQueries(_ stations: ArraySlice<Station>) -> ([String], [Coordinate]) {
        var rng = SplitMix64(seed: seed &+ 77)
        var names: [String] = [], points: [Coordinate] = []
        for _ in 0..<queries {
            let station = stations[stations.startIndex + Int(rng.next() % UInt64(stations.count))]
            names.append(String(station.name.prefix(3 + Int(rng.next() % 6))))
            points.append(Coordinate(latitude: max(-90, min(90, station.coordinate.latitude + rng.uniform(-0.25...0.25))),
                                     longitude: station.coordinate.longitude))
        }
        return (names, points)
    }
}

/// The snapshot load: every station line and the end marker into a filter (parse, intern, index,
/// grid order).
@inline(never)
func countedSnapshotLoad(_ engine: FilterEngine, _ lines: [[UInt8]], _ out: inout JSONWriter) {
    for line in lines { line.withUnsafeBytes { engine.handle(line: $0, now: CountedCommand.now, into: &out) } }
}

/// A pan's filter + format with the formatter separate (the default `isobar up` layout): the
/// filter answers each viewport with `visible`, the formatter turns that into `annotations`.
@inline(never)
func countedPans(_ engine: FilterEngine, _ formatter: FormatEngine, _ viewports: [(client: Int, line: [UInt8])],
                 _ annotations: inout [(client: Int, line: [UInt8])], _ visibleBytes: inout Int) {
    var filtered = JSONWriter(capacity: 1 << 16)
    var formatted = JSONWriter(capacity: 1 << 16)
    for viewport in viewports {
        filtered.bytes.removeAll(keepingCapacity: true)
        viewport.line.withUnsafeBytes { engine.handle(line: $0, now: CountedCommand.now, into: &filtered) }
        visibleBytes += filtered.bytes.count
        forEachLine(filtered.bytes) { line in
            formatted.bytes.removeAll(keepingCapacity: true)
            formatter.handle(line: line, into: &formatted)
            forEachLine(formatted.bytes) { annotations.append((viewport.client, Array($0))) }
        }
    }
}

/// The gateway's relay of each `annotations` message to its WebSocket client, one message per
/// bus burst (the hub queues it, wakes the loop, the handler writes the frame).
@inline(never)
func countedGatewayRelay(_ rig: GatewayRelayRig, _ topics: [String], _ messages: [(client: Int, line: [UInt8])]) -> (bursts: Int, bytes: Int) {
    var bytes = 0
    for (topic, message) in zip(topics, messages) {
        rig.relay(topic: topic, payload: message.line)
        bytes += rig.flush()
    }
    return (messages.count, bytes)
}

/// The client's apply of every `annotations` message, in order, one set per client.
@inline(never)
func countedClientApply(_ sets: inout [AnnotationFollower], _ messages: [(client: Int, line: [UInt8])]) -> Int {
    var failed = 0
    for message in messages where (try? sets[message.client].apply(storage: message.line)) != .applied { failed += 1 }
    return failed
}

/// Geocoding name prefixes, then reverse geocoding points near places.
@inline(never)
func countedGeocodeReverse(_ gazetteer: Gazetteer, _ names: [String], _ points: [Coordinate]) -> (hits: Int, near: Int) {
    var hits = 0, near = 0
    for name in names { hits += gazetteer.geocode(name)?.count ?? 0 }
    for point in points where gazetteer.reverse(point) != nil { near += 1 }
    return (hits, near)
}

/// Calls `body` with each newline-terminated line of `bytes`, without its newline.
private func forEachLine(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> Void) {
    bytes.withUnsafeBytes { buffer in
        var start = 0
        for i in 0..<buffer.count where buffer[i] == 0x0A {
            body(UnsafeRawBufferPointer(rebasing: buffer[start..<i]))
            start = i + 1
        }
    }
}
