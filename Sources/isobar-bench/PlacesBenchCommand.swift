import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost
import Synchronization

/// `places`: geocoding over the default gazetteer (GeoNames cities500, 234,908 places). In process:
/// `Gazetteer.reverse(_:radiusKm:)` for random points near places and uniform on the sphere, and
/// `Gazetteer.geocode(_:)` for a fixed list of queries (the issue's, Korean names, prefixes); then
/// the resident memory of an `isobar places` process with the gazetteer loaded, after it answered.
struct PlacesBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places", abstract: "geocode and reverse over the default gazetteer in process, and the places process's memory.")

    @OptionGroup var common: CommonOptions
    @Option(help: "The GeoNames dump (scripts/deps.sh builds the default).")
    var places = "data/places/cities500.txt"
    @Option(help: "Random reverse points per kind per run.")
    var points = 2000
    @Option(help: "How many times each forward query is timed per run.")
    var repeats = 5

    static let reverseTarget = 0.000_020
    static let geocodeTarget = 0.000_5
    static let rssTarget = 150 * 1024 * 1024

    /// The issue's queries, the brief's Korean city names, and prefixes as typed.
    static let queries: [(String, [String])] = [
        ("issue list", ["seoul", "busan", "daegu", "denver", "kosice", "sao paulo", "new york", "springfield, il", "zurich",
                        "서울", "Москва", "nürnberg", "nurnberg"]),
        ("Korean names", ["공주", "광주", "구미", "군산", "대구", "대전", "목포", "부산", "서산", "서울", "속초", "수원", "순천", "울산", "전주", "제주시", "천안", "청주", "춘천"]),
        ("prefixes", ["lond", "san f", "mün", "new", "st", "bra", "los ang", "par"]),
    ]

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: places) else {
            throw ValidationError("cannot read \(places): run scripts/deps.sh")
        }
        let start = Clock.now()
        let gazetteer = try data.withUnsafeBytes { try Gazetteer(dump: $0, file: places) }
        let loadSeconds = Clock.now() - start

        var table = Table("places: geocode and reverse over \(Format.int(gazetteer.count)) places in process, \(common.runs) runs",
                          header: ["query kind", "queries/run", "hits p50", "median µs", "p99 µs", "max µs"])
        var rng = SplitMix64(seed: common.seed &+ 28)
        let near = (0..<points).map { _ -> Coordinate in
            let row = Int(rng.next() % UInt64(gazetteer.count))
            let place = gazetteer.place(row: row).coordinate
            return Coordinate(latitude: min(90, max(-90, place.latitude + rng.uniform(-0.25...0.25))),
                              longitude: min(180, max(-180, place.longitude + rng.uniform(-0.25...0.25))))
        }
        let uniform = (0..<points).map { _ in
            Coordinate(latitude: asin(rng.uniform(-1...1)) * 180 / .pi, longitude: rng.uniform(-180...180))
        }
        var worstReverse = 0.0, worstGeocode = 0.0
        _ = gazetteer.reverse(Coordinate(latitude: 0, longitude: 0))
        for (kind, set, radius) in [("reverse, near places (±0.25°), radius 100 km", near, Gazetteer.defaultRadiusKm),
                                    ("reverse, uniform on the sphere, radius 100 km", uniform, Gazetteer.defaultRadiusKm),
                                    ("reverse, uniform on the sphere, no radius", uniform, Gazetteer.maxRadiusKm)] {
            let result = measure(set.count) { i in
                let begin = Clock.now()
                let hit = gazetteer.reverse(set[i], radiusKm: radius)
                return (Clock.now() - begin, hit == nil ? 0 : 1)
            }
            table.add([kind, Format.int(set.count)] + result.cells)
            if radius == Gazetteer.defaultRadiusKm && kind.contains("near") { worstReverse = max(worstReverse, result.median.median) }
        }
        _ = gazetteer.geocode("warm")
        for (kind, queries) in Self.queries {
            let result = measure(queries.count * repeats) { i in
                let query = queries[i % queries.count]
                let begin = Clock.now()
                let hits = gazetteer.geocode(query) ?? []
                return (Clock.now() - begin, hits.count)
            }
            let shown = queries.prefix(4).map { "`\($0)`" }.joined(separator: ", ") + (queries.count > 4 ? ", …" : "")
            table.add(["geocode, \(kind) (\(shown))", Format.int(queries.count * repeats)] + result.cells)
            worstGeocode = max(worstGeocode, result.median.median)
        }
        let rss = try await processMemory()
        table.note("load: \(Format.number(loadSeconds, 2)) s to parse \(Format.int(data.count)) bytes and build the indexes (\(Format.int(gazetteer.report.places)) places, \(gazetteer.report.skipped) bad rows)")
        table.note("each cell: median over runs of that run's percentile over its queries (min–max over runs); geocode limit \(Gazetteer.defaultLimit)")
        table.note("target: reverse <= 20 µs median (near places): \(worstReverse <= Self.reverseTarget ? "MET" : "NOT MET") (\(Format.number(worstReverse * 1e6, 2)) µs)")
        table.note("target: geocode <= 0.5 ms median: \(worstGeocode <= Self.geocodeTarget ? "MET" : "NOT MET") (slowest kind \(Format.number(worstGeocode * 1e6, 1)) µs)")
        table.note("`isobar places` process with the gazetteer loaded, after answering: RSS \(Format.number(Double(rss.rss) / 1_048_576, 1)) MB, peak \(Format.number(Double(rss.peak) / 1_048_576, 1)) MB; target <= 150 MB: \(rss.rss <= Self.rssTarget ? "MET" : "NOT MET")")
        table.print()
    }

    /// Starts `isobar places`, has it answer one geocode and one reverse (so it has loaded), and
    /// reads its VmRSS and VmHWM.
    private func processMemory() async throws -> (rss: Int, peak: Int) {
        // Loaded once both requests are answered (two stdout lines).
        let lines = Mutex(0), answered = Latch()
        let process = try await Children.start(Paths.isobar(common.isobar), ["places", "--places", places],
                                               log: Paths.scratch("places") + "/places.log", stdin: .pipe) { stream, event in
            guard stream == .standardOutput, case .line = event else { return }
            if lines.withLock({ $0 += 1; return $0 }) == 2 { answered.raise() }
        }
        return try await ensuring({ try await answers(process, answered: answered) }, finally: { await Children.stop(process) })
    }

    /// Asks `process` (an `isobar places`) one geocode and one reverse; once `answered` is raised
    /// (both answered), its VmRSS and VmHWM.
    private func answers(_ process: Child, answered: Latch) async throws -> (rss: Int, peak: Int) {
        let requests = #"{"type":"geocode","client":"b","query":"seoul"}"# + "\n"
            + #"{"type":"reverse","client":"b","latitude":42.432356,"longitude":25.637389}"# + "\n"
        guard let input = process.process.stdin else { throw ValidationError("isobar places: no stdin") }
        try Array(requests.utf8).withUnsafeBytes { try input.writeAll($0) }
        // Answered, or ended first, or the deadline (a timer that only guards against a hang).
        let answeredInTime = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await answered.wait(); return answered.isRaised }
            group.addTask { _ = await process.process.waitForExit(); return answered.isRaised }
            group.addTask { _ = try? await Task.sleep(for: .seconds(120)); return answered.isRaised }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard answeredInTime else { throw ValidationError("isobar places ended (or hung) before answering") }
        let pid = process.processIdentifier
        return (ProcStatus.bytes("VmRSS", pid: pid) ?? 0, ProcStatus.bytes("VmHWM", pid: pid) ?? 0)
    }

    private func measure(_ count: Int, _ body: (Int) -> (seconds: Double, hits: Int)) -> FindCommand.Result {
        FindCommand.measure(runs: common.runs, count, body)
    }
}
