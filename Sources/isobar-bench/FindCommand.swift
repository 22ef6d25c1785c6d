import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// `find`: nearest station and name search (PROTOCOL.md "Find"). In process over 1,000,000
/// stations: `StationSnapshot.nearestStation(to:)` for random points uniform on the sphere (plus
/// the poles and the 180° meridian) and `StationSnapshot.search(_:limit:)` for a fixed list of
/// realistic queries. Through the pipeline (100,000 stations): the round trip `nearest` -> `place`
/// and `search` -> `results`, one request at a time, beside a pan (viewport -> applied) timed the
/// same way on the same pipeline, the three kinds interleaved.
struct FindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find", abstract: "nearest and search: in process over 1M stations and through the pipeline, beside pans.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Stations in the in-process snapshot.")
    var stations = 1_000_000
    @Option(help: "Random nearest points per run (uniform on the sphere; the poles and the 180° meridian are added).")
    var points = 1000
    @Option(help: "How many times each search query is timed per run.")
    var repeats = 5
    @Option(help: "Stations loaded into the pipeline.")
    var pipelineStations = 100_000
    @Option(help: "Requests of each kind (nearest, search, pan) through the pipeline per run.")
    var requests = 200
    @Option(help: "Search limit (the protocol's default).")
    var limit = SearchRequest.defaultLimit
    @Flag(help: "Only the in-process measurement.")
    var inProcessOnly = false

    static let client = "bench-find"
    static let nearestTarget = 0.000_05
    static let searchTarget = 0.001

    func run() async throws {
        let world = try WorldStations.load(path: common.world)
        let generated = StationGenerator(world: world, seed: common.seed).stations(count: stations)
        let (_, lines) = StationGenerator.snapshotLines(generated)
        let shadow = Shadow(lines: lines)
        guard let snapshot = shadow.snapshot else { throw ValidationError("the filter holds no snapshot") }

        var table = Table("find: nearest and search over \(Format.int(stations)) stations in process, \(common.runs) runs",
                          header: ["query kind", "queries/run", "hits p50", "median ms", "p99 ms", "max ms"])
        var worstNearest = 0.0, worstSearch = 0.0

        // Nearest: uniform on the sphere, then the hard places.
        var rng = SplitMix64(seed: common.seed &+ 13)
        let uniform = (0..<points).map { _ in
            Coordinate(latitude: asin(rng.uniform(-1...1)) * 180 / .pi, longitude: rng.uniform(-180...180))
        }
        var edges = [Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 0),
                     Coordinate(latitude: 90, longitude: 137), Coordinate(latitude: -90, longitude: -45)]
        for latitude in stride(from: -80.0, through: 80.0, by: 10) {
            edges.append(Coordinate(latitude: latitude, longitude: 180))
            edges.append(Coordinate(latitude: latitude, longitude: -180))
            edges.append(Coordinate(latitude: latitude + 0.5, longitude: 179.99))
        }
        _ = snapshot.nearestStation(to: Coordinate(latitude: 0, longitude: 0))  // warm
        for (kind, set) in [("nearest, uniform on the sphere", uniform), ("nearest, poles and 180° meridian", edges)] {
            let result = measure(set.count) { i in
                let start = Clock.now()
                let hit = snapshot.nearestStation(to: set[i])
                return (Clock.now() - start, hit == nil ? 0 : 1)
            }
            table.add([kind, Format.int(set.count)] + result.cells)
            worstNearest = max(worstNearest, result.median.median)
        }

        // Search: a fixed list of realistic queries, picked (seeded) from the generated stations.
        _ = snapshot.search("warm", limit: limit)
        for (kind, queries) in Self.queries(generated, seed: common.seed) {
            let result = measure(queries.count * repeats) { i in
                let query = queries[i % queries.count]
                let start = Clock.now()
                let hits = snapshot.search(query, limit: limit)
                return (Clock.now() - start, hits.count)
            }
            let shown = queries.prefix(4).map { "`\($0)`" }.joined(separator: ", ") + (queries.count > 4 ? ", …" : "")
            table.add(["search, \(kind) (\(shown))", Format.int(queries.count * repeats)] + result.cells)
            worstSearch = max(worstSearch, result.median.median)
        }
        table.note("in process: `StationSnapshot.nearestStation(to:)` and `StationSnapshot.search(_:limit: \(limit))` on the filter's snapshot (built by a `FilterEngine` from the station lines, as `dense` does); each cell: median over runs of that run's percentile over its queries (min–max over runs)")
        table.note("target: nearest <= 0.05 ms median at \(Format.int(stations)): \(worstNearest <= Self.nearestTarget ? "MET" : "NOT MET") (slowest kind's median \(Format.number(worstNearest * 1000, 4)) ms)")
        table.note("target: search <= 1 ms median at \(Format.int(stations)): \(worstSearch <= Self.searchTarget ? "MET" : "NOT MET") (slowest kind's median \(Format.number(worstSearch * 1000, 3)) ms)")
        table.print()

        if !inProcessOnly { try await throughPipeline(world: world, uniform: uniform) }
    }

    /// One kind's timings: per run the p50/p99/max over `count` timed calls, summarised over runs.
    struct Result {
        var median: Summary, p99: Summary, max: Summary, hits: Int
        var cells: [String] {
            [Format.int(hits), median.text(4, scale: 1000), p99.text(4, scale: 1000), max.text(4, scale: 1000)]
        }
    }

    private func measure(_ count: Int, _ body: (Int) -> (seconds: Double, hits: Int)) -> Result {
        Self.measure(runs: common.runs, count, body)
    }

    /// `count` timed calls per run, `runs` runs (also the `places` benchmark's measurement).
    static func measure(runs: Int, _ count: Int, _ body: (Int) -> (seconds: Double, hits: Int)) -> Result {
        var p50: [Double] = [], p99: [Double] = [], most: [Double] = [], hits: [Int] = []
        for _ in 0..<runs {
            var times: [Double] = []
            times.reserveCapacity(count)
            for i in 0..<count {
                let (seconds, found) = body(i)
                times.append(seconds)
                hits.append(found)
            }
            times.sort()
            p50.append(Summary.percentile(sorted: times, 50))
            p99.append(Summary.percentile(sorted: times, 99))
            most.append(times.last ?? .nan)
        }
        hits.sort()
        return Result(median: Summary(p50), p99: Summary(p99), max: Summary(most), hits: hits.isEmpty ? 0 : hits[hits.count / 2])
    }

    /// Query kinds and their queries: name prefixes as typed, ids in lower case (copies included),
    /// a word from the middle of a name, queries that match nothing, one letter.
    static func queries(_ stations: [Station], seed: UInt64) -> [(String, [String])] {
        var rng = SplitMix64(seed: seed &+ 17)
        func pick() -> Station { stations[Int(rng.next() % UInt64(stations.count))] }
        var prefixes: [String] = [], ids: [String] = [], words: [String] = []
        var attempts = 0
        while (prefixes.count < 20 || ids.count < 20 || words.count < 20) && attempts < 100_000 {
            attempts += 1
            let station = pick()
            if prefixes.count < 20 {
                let length = 3 + Int(rng.next() % 4)
                let prefix = String(station.name.prefix(length)).lowercased()
                if prefix.count >= 3 && !prefixes.contains(prefix) { prefixes.append(prefix) }
            }
            if ids.count < 20 { ids.append(station.id.lowercased()) }
            if words.count < 20 {
                let parts = station.name.split(whereSeparator: { !$0.isLetter })
                if parts.count >= 3, let word = parts.dropFirst().dropLast().first(where: { $0.count >= 4 }) {
                    let query = String(word).lowercased()
                    if !words.contains(query) { words.append(query) }
                }
            }
        }
        return [("name prefix", prefixes), ("id in lower case", ids), ("word from the middle of a name", words),
                ("matching nothing", ["zzqxjv", "qwxzq kvv", "xyzzyplugh"]), ("one letter", ["a", "k", "s", "z"])]
    }

    // MARK: - Through the pipeline

    private func throughPipeline(world: [WorldStation], uniform: [Coordinate]) async throws {
        let generated = StationGenerator(world: world, seed: common.seed).stations(count: pipelineStations)
        let (id, lines) = StationGenerator.snapshotLines(generated)
        let shadow = Shadow(lines: lines)
        guard let snapshot = shadow.snapshot else { throw ValidationError("the shadow filter holds no snapshot") }
        try await Pipeline.run(isobar: Paths.isobar(common.isobar), name: "find", plugs: common.plugs) { pipeline in
            try await pipeline.load(lines, id: id)
            try await measure(pipeline: pipeline, generated: generated, shadow: shadow, snapshot: snapshot, uniform: uniform)
        }
    }

    /// Nearest, search and pans, interleaved, on a running pipeline holding `generated`.
    private func measure(pipeline: Pipeline, generated: [Station], shadow: Shadow, snapshot: StationSnapshot,
                         uniform: [Coordinate]) async throws {

        // A second client for the answers, on exactly this client's topics.
        guard let frontend = pipeline.environment["ISOBAR_PUB"], let backend = pipeline.environment["ISOBAR_SUB"] else {
            throw ValidationError("pipeline without endpoints")
        }
        let finder = try BusClient(endpoints: BrokerEndpoints(frontend: frontend, backend: backend),
                                   topics: ["place/\(Self.client)", "results/\(Self.client)"])
        defer { finder.close() }
        let answers = Answers()
        finder.start(onMessage: { topic, _ in answers.received(topic: topic) })

        func nearestLine(_ point: Coordinate) -> [UInt8] {
            var writer = JSONWriter()
            NearestRequest(client: Self.client, point: point).write(to: &writer)
            return Array(writer.bytes.dropLast())
        }
        func searchLine(_ query: String) -> [UInt8] {
            var writer = JSONWriter()
            SearchRequest(client: Self.client, query: query, limit: limit).write(to: &writer)
            return Array(writer.bytes.dropLast())
        }
        // Handshake: ask until an answer comes back (the subscription is then in place; each ask
        // waits 0.2 s for its answer, as ZeroMQ's slow joiner may drop it), then drain the answers
        // to the earlier asks: the drain ends after 0.3 s with none (a quiet window).
        let deadline = Date().addingTimeInterval(20)
        repeat {
            guard Date() < deadline else { throw pipeline.failure("find: no place answer in 20 s") }
            finder.publish(nearestLine(Coordinate(latitude: 0, longitude: 0)))
        } while await answers.next(within: .milliseconds(200)) == nil
        while await answers.next(within: .milliseconds(300)) != nil {}

        let queries = Self.queries(generated, seed: common.seed).flatMap(\.1)
        var nearest = Percentiles(), search = Percentiles(), pans = Percentiles()
        var timeouts = 0
        let waiter = Waiter()
        pipeline.clients.onApplied = { client, _, _, count, time in waiter.applied(client: client, count: count, time: time) }
        // Interleaved (nearest, search, pan, nearest, ...) so that noise from anything else on the
        // machine falls on the three kinds alike.
        for run in 0..<common.runs {
            var nearestTimes: [Double] = [], searchTimes: [Double] = [], panTimes: [Double] = []
            let name = "find-pan-\(run)"
            var planner = PanPlanner(seed: common.seed &+ UInt64(run), spans: 0.5...3.0)
            waiter.expect(name)
            for i in 0..<requests {
                var line = nearestLine(uniform[(run * requests + i) % uniform.count])
                var start = Clock.now()
                finder.publish(line)
                if let time = await answers.next(within: .seconds(5), topic: "place/\(Self.client)") { nearestTimes.append(time - start) } else { timeouts += 1 }
                line = searchLine(queries[(run * requests + i) % queries.count])
                start = Clock.now()
                finder.publish(line)
                if let time = await answers.next(within: .seconds(5), topic: "results/\(Self.client)") { searchTimes.append(time - start) } else { timeouts += 1 }
                // One pan of one client that produces an update, timed as the `latency` bench does
                // (pans that change nothing are sent but not timed).
                for _ in 0..<10 {
                    let (line, answer) = shadow.answer(Viewport(client: name, region: planner.next(in: snapshot)))
                    guard let version = answer.version else { pipeline.client.publish(line); continue }
                    pipeline.clients.await(name, version: version)
                    let start = Clock.now()
                    pipeline.client.publish(line)
                    if let (time, _) = await waiter.next(within: .seconds(5)) { panTimes.append(time - start) } else { timeouts += 1 }
                    break
                }
            }
            nearest.add(nearestTimes)
            search.add(searchTimes)
            pans.add(panTimes)
        }
        var table = Table("find through the pipeline: \(Format.int(pipelineStations)) stations, \(requests) requests of each kind per run, one at a time, interleaved, \(common.runs) runs",
                          header: ["request", "answer", "p50 ms", "p99 ms", "max ms"])
        table.add(["nearest (uniform on the sphere)", "place", nearest.p50.text(2, scale: 1000), nearest.p99.text(2, scale: 1000), nearest.max.text(2, scale: 1000)])
        table.add(["search (the queries above, limit \(limit))", "results", search.p50.text(2, scale: 1000), search.p99.text(2, scale: 1000), search.max.text(2, scale: 1000)])
        table.add(["pan (viewport, spans 0.5–3°, limit 500)", "annotations applied", pans.p50.text(2, scale: 1000), pans.p99.text(2, scale: 1000), pans.max.text(2, scale: 1000)])
        table.note("round trip from publishing the request to receiving `place/\(Self.client)` / `results/\(Self.client)` on a second BusClient (broker -> filter plug -> format plug -> broker); pans as in `latency` (sent -> annotations applied), on the same pipeline; timeouts (5 s): \(timeouts)")
        table.note("each cell: median over runs of that run's percentile (min–max over runs)")
        let met = nearest.p50.median <= pans.p50.median && search.p50.median <= pans.p50.median
            && nearest.p99.median <= pans.p99.median && search.p99.median <= pans.p99.median
        table.note("target: through the pipeline <= pan latency (p50 and p99): \(met && timeouts == 0 ? "MET" : "NOT MET") "
                   + "(p50 nearest \(Format.ms(nearest.p50.median)), search \(Format.ms(search.p50.median)), pan \(Format.ms(pans.p50.median)) ms; "
                   + "p99 \(Format.ms(nearest.p99.median)), \(Format.ms(search.p99.median)), \(Format.ms(pans.p99.median)) ms)")
        table.print()
    }

    struct Percentiles {
        var p50s: [Double] = [], p99s: [Double] = [], maxes: [Double] = []
        mutating func add(_ times: [Double]) {
            let sorted = times.sorted()
            p50s.append(Summary.percentile(sorted: sorted, 50))
            p99s.append(Summary.percentile(sorted: sorted, 99))
            maxes.append(sorted.last ?? .nan)
        }
        var p50: Summary { Summary(p50s) }
        var p99: Summary { Summary(p99s) }
        var max: Summary { Summary(maxes) }
    }
}

/// Hands the arrival time of each answer (topic and time) from the receive thread to the waiting task.
final class Answers: Sendable {
    private let arrived = Mailbox<(topic: String, time: Double)>()

    func received(topic: String) {
        arrived.put((topic, Clock.now()))
    }

    /// The next answer's arrival time (skipping answers on other topics when `topic` is given), or
    /// nil once `deadline` passed (a deadline that only guards against an answer that never comes).
    func next(within deadline: Duration, topic: String? = nil) async -> Double? {
        let end = ContinuousClock.now + deadline
        while true {
            let left = end - ContinuousClock.now
            guard left > .zero, let next = await arrived.take(within: left) else { return nil }
            if topic == nil || next.topic == topic { return next.time }
        }
    }
}
