import ArgumentParser
import Foundation
import IsobarCore

/// `clients`: many map clients panning at once through the pipeline, all multiplexed over one
/// `BusClient` (subscribed to `annotations/`). Each client keeps one viewport in flight (closed
/// loop): sustained updates/s, per-client latency spread, and the filter's RSS over time.
struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients", abstract: "N clients panning at once: updates/s end to end, per-client latency, filter RSS over time.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Number of clients.")
    var clients = 1000
    @Option(help: "Updates per client per run.")
    var steps = 20
    @Option(help: "Stations loaded.")
    var stations = 100_000
    @OptionGroup var pans: PanOptions
    @Option(help: "Untimed rounds of `steps` updates before the timed runs (warms caches, allocators and TCP windows; shown, not counted).")
    var warmup = 1
    @Flag(help: "Load a snapshot fetched two days ago, so every station is marked stale (`\"stale\":true` on every annotation), instead of one fetched now.")
    var staleData = false
    @Flag(help: "Send each client's next viewport as soon as its update is applied, instead of the burst of all updates taken together.")
    var oneAtATime = false
    @Option(help: "Filter shards (1: one filter, as `isobar up`; N: `isobar up --filters N`).")
    var filters = 1
    @Option(help: "Idle clients besides the panning ones, hosted like a gateway's: one viewport each, then one lease per second for all.")
    var idle = 0
    @Option(help: "Seconds over which the idle clients' cost is measured, before the panning runs.")
    var idleSeconds = 10.0

    func run() async throws {
        let world = try WorldStations.load(path: common.world)
        let generated = StationGenerator(world: world, seed: common.seed).stations(count: stations)
        let (id, lines) = StationGenerator.snapshotLines(generated, fetchedAt: staleData ? StationGenerator.fetchedLongAgo() : StationGenerator.fetchedNow())
        let shadow = Shadow(lines: lines)
        guard let snapshot = shadow.snapshot else { throw ValidationError("the shadow filter holds no snapshot") }

        // Every client's whole walk, planned with the shadow filter: only pans that change the
        // client's set (so an update is certain), with the version and set size it will have.
        let names = (0..<clients).map { String(format: "c%04d", $0) }
        let rounds = warmup + common.runs
        var plans: [[ClientsLoop.Step]] = []
        var changes: [Double] = []
        for (i, name) in names.enumerated() {
            var planner = pans.planner(seed: common.seed, client: i)
            var plan: [ClientsLoop.Step] = []
            var attempts = 0
            while plan.count < steps * rounds && attempts < steps * rounds * 20 {
                attempts += 1
                let (line, answer) = shadow.answer(Viewport(client: name, region: planner.next(in: snapshot)))
                if let version = answer.version {
                    plan.append(.init(line: line, version: version, annotations: answer.annotations))
                    changes.append(Double(answer.changes))
                }
            }
            guard plan.count == steps * rounds else { throw ValidationError("could not plan \(steps * rounds) changing pans for \(name)") }
            plans.append(plan)
        }

        let fleet = idle > 0 ? try IdleFleet(count: idle, shadow: shadow, snapshot: snapshot, seed: common.seed &+ 77,
                                             spans: pans.minSpan...pans.maxSpan) : nil

        // Room for every client in one filter (its default bound is 100,000).
        let filterArguments = ["--max-clients", String(max(FilterOptions().maxClients, 2 * (clients + idle)))]
        try await Pipeline.run(isobar: Paths.isobar(common.isobar), name: "clients", filters: filters, filterArguments: filterArguments,
                               plugs: common.plugs, chainFormat: common.chainFormat) { pipeline in
            try await measure(pipeline: pipeline, lines: lines, id: id, names: names, plans: plans, changes: changes, fleet: fleet)
        }
    }

    /// The idle window (with `--idle`) and the timed rounds, on a running pipeline.
    private func measure(pipeline: Pipeline, lines: [[UInt8]], id: String, names: [String], plans: [[ClientsLoop.Step]],
                         changes: [Double], fleet: IdleFleet?) async throws {
        let total = steps * common.runs
        let rounds = warmup + common.runs
        try await pipeline.load(lines, id: id)
        var idleNotes: [String] = []
        if let fleet {
            let took = try await fleet.connect(pipeline)
            let talliesAtStart = pipeline.clients.tallies
            fleet.startLeasing(pipeline)
            // The first lease's tally from every shard; nothing else in flight then.
            guard await pipeline.waitFor(seconds: 30, { pipeline.clients.tallies >= talliesAtStart + filters }) else {
                throw pipeline.failure("idle clients: no tally for the first lease in 30 s")
            }
            let before = pipeline.roles.map { ProcStatus.cpuSeconds(pid: $0.pid) ?? 0 }
            let talliesBefore = pipeline.clients.tallies
            let start = Clock.now()
            try await Task.sleep(for: .milliseconds(Int64(idleSeconds * 1000)))  // the idle window being measured
            let seconds = Clock.now() - start
            let used = zip(pipeline.roles, before).map { (ProcStatus.cpuSeconds(pid: $0.0.pid) ?? 0) - $0.1 }
            let pipelineCPU = zip(pipeline.roles, used).filter { !$0.0.name.hasPrefix("clients") }.map(\.1).reduce(0, +)
            let everything = used.reduce(0, +)
            idleNotes.append("idle: \(Format.int(idle)) clients leased as one gateway (one viewport each, then one lease per second); all answered in \(Format.number(took, 1)) s")
            idleNotes.append("idle cost over \(Format.number(seconds, 1)) s with only the idle clients connected, % of one core: " +
                             zip(pipeline.roles, used).map { "\($0.0.name) \(Format.number($0.1 / seconds * 100, 2))" }.joined(separator: ", ") +
                             "; pipeline (every process but this one) \(Format.number(pipelineCPU / seconds * 100, 2)) % = \(Format.number(pipelineCPU / seconds / Double(idle) * 1e6, 3)) µs per idle client per second (with this process, the leasing \"gateway\": \(Format.number(everything / seconds / Double(idle) * 1e6, 3)) µs)")
            idleNotes.append("tallies while idle: \(pipeline.clients.tallies - talliesBefore) (one per shard per lease)")
        }
        let loop = ClientsLoop(names: names, plans: plans, burst: !oneAtATime)
        pipeline.clients.onApplied = { _, slot, _, count, time in loop.applied(slot: slot, count: count, time: time) }
        pipeline.clients.onDrained = { loop.flush() }

        let rssLoaded = ProcStatus.bytes("VmRSS", pid: pipeline.filterPID)
        let layout = (idle > 0 ? " (+ \(Format.int(idle)) idle)" : "") + (filters > 1 ? ", \(filters) filter shards" : "")
            + (common.chainFormat ? ", formatter chained in the filter" : "")
        var table = Table("clients: \(Format.int(clients)) clients\(layout) x \(steps) updates per run, \(Format.int(stations)) stations, spans \(pans.minSpan)–\(pans.maxSpan)°, pan steps up to \(pans.panStep) x span, zoom steps up to \(pans.zoomStep)x\(oneAtATime ? ", viewports sent one at a time" : "")\(staleData ? ", every station stale" : "")",
                          header: ["run", "updates/s", "seconds", "p50 ms", "p99 ms", "max ms", "filter RSS MB start / max / end"])
        var rates: [Double] = []
        var starved = 0
        var samples: [(Double, Int)] = []
        var cpu = Array(repeating: 0.0, count: pipeline.roles.count)
        var timedUpdates = 0
        let origin = Clock.now()
        for round in 0..<rounds {
            let run = round - warmup
            if run == 0 { loop.resetLatencies() }
            let before = loop.latencies.map(\.count)
            let rssStart = ProcStatus.bytes("VmRSS", pid: pipeline.filterPID)
            let cpuStart = pipeline.roles.map { ProcStatus.cpuSeconds(pid: $0.pid) ?? 0 }
            let start = Clock.now()
            loop.start(steps: (round * steps)..<((round + 1) * steps), on: pipeline)
            // The filter's RSS on a 0.2 s tick while the round runs, and once at its end.
            let sampler = Self.sampleRSS(pid: pipeline.filterPID, every: .milliseconds(200), origin: origin)
            let done = await loop.finished(within: .seconds(120))
            let seconds = Clock.now() - start
            sampler.cancel()
            let taken = await sampler.value + (ProcStatus.bytes("VmRSS", pid: pipeline.filterPID).map { [(Clock.now() - origin, $0)] } ?? [])
            samples += taken
            let rssMax = taken.map(\.1).reduce(rssStart ?? 0, max)
            if !done { starved += loop.unfinished }
            let fresh = loop.latencies.enumerated().flatMap { Array($1[before[$0]...]) }.sorted()
            if run >= 0 {
                for (k, role) in pipeline.roles.enumerated() { cpu[k] += (ProcStatus.cpuSeconds(pid: role.pid) ?? 0) - cpuStart[k] }
                timedUpdates += fresh.count
                rates.append(Double(fresh.count) / seconds)
            }
            table.add([run >= 0 ? "\(run + 1)" : "warm-up (not counted)", Format.number(Double(fresh.count) / seconds), Format.number(seconds, 2),
                       Format.ms(Summary.percentile(sorted: fresh, 50)), Format.ms(Summary.percentile(sorted: fresh, 99)),
                       Format.ms(fresh.last ?? .nan),
                       "\(ProcStatus.megabytes(rssStart)) / \(ProcStatus.megabytes(rssMax)) / \(ProcStatus.megabytes(ProcStatus.bytes("VmRSS", pid: pipeline.filterPID)))"])
            if !done { break }
        }
        let rate = Summary(rates)
        table.add(["median (min–max)", rate.text(), "", "", "", "", ""])

        // Per-client spread over all runs.
        let perClientP50 = loop.latencies.map { Summary.percentile(sorted: $0.sorted(), 50) }
        let perClientMax = loop.latencies.map { $0.max() ?? .nan }
        let perClientCount = loop.latencies.map { Double($0.count) }
        let p50 = Summary(perClientP50), mx = Summary(perClientMax), counts = Summary(perClientCount)
        table.note("per-client p50 latency across clients: median \(Format.ms(p50.median)) ms, best \(Format.ms(p50.min)) ms, worst \(Format.ms(p50.max)) ms; per-client max: median \(Format.ms(mx.median)) ms, worst \(Format.ms(mx.max)) ms")
        table.note("updates completed per client: min \(Format.number(counts.min)), max \(Format.number(counts.max)) (of \(total)); starved (unfinished after 120 s): \(starved); wrong set sizes: \(loop.wrong); version gaps: \(pipeline.clients.gaps)")
        let sortedChanges = changes.sorted()
        table.note("an update changes on average \(Format.number(changes.reduce(0, +) / Double(max(1, changes.count)), 1)) stations (upserts + removals in the filter's `visible`; median \(Format.number(Summary.percentile(sorted: sortedChanges, 50))), max \(Format.number(sortedChanges.last ?? 0)))")
        table.note("filter RSS after loading: \(ProcStatus.megabytes(rssLoaded)) MB; samples every 0.2 s: \(Self.sketch(samples))")
        let perUpdate = cpu.map { $0 / Double(max(1, timedUpdates)) * 1e6 }
        table.note("CPU per update, µs (user + system from /proc/PID/stat over the timed runs): " +
                   zip(pipeline.roles, perUpdate).map { "\($0.name) \(Format.number($1, 1))" }.joined(separator: ", ") +
                   "; total \(Format.number(perUpdate.reduce(0, +), 1)) (2 cores give \(Format.number(2e6 / 20_000, 0)) µs per update at 20,000/s)")
        let flat = Self.isFlat(samples)
        for note in idleNotes { table.note(note) }
        if let fleet {
            let wrong = fleet.wrong(pipeline)
            table.note("idle clients at the end: \(wrong) of \(Format.int(idle)) not holding exactly their one answer (count, version, one message); tallies asking for a resend: \(pipeline.clients.resends)")
            table.note("target (100,000 connected, 1,000 panning): >= 15,000 updates/s, every client correct: \(rate.median >= 15_000 && wrong == 0 && loop.wrong == 0 && starved == 0 && pipeline.clients.gaps == 0 ? "MET" : "NOT MET") (rate \(Format.number(rate.median)), idle wrong \(wrong), panning wrong \(loop.wrong), starved \(starved), gaps \(pipeline.clients.gaps))")
        }
        table.note("target: >= 20,000 updates/s, none starved, memory flat: \(rate.median >= 20_000 && starved == 0 && counts.min == Double(total) && flat ? "MET" : "NOT MET") (rate \(Format.number(rate.median)), starved \(starved), memory \(flat ? "flat" : "growing"))")
        table.print()
    }

    /// A task that reads `pid`'s VmRSS every `interval` (a sampling tick) until cancelled; its
    /// value is the samples (seconds since `origin`, bytes).
    static func sampleRSS(pid: Int32, every interval: Duration, origin: Double) -> Task<[(Double, Int)], Never> {
        Task {
            var taken: [(Double, Int)] = []
            while true {
                guard (try? await Task.sleep(for: interval)) != nil else { return taken }
                if let rss = ProcStatus.bytes("VmRSS", pid: pid) { taken.append((Clock.now() - origin, rss)) }
            }
        }
    }

    /// A few evenly spaced samples "t=1.2s 45.1MB, ...".
    static func sketch(_ samples: [(Double, Int)]) -> String {
        guard !samples.isEmpty else { return "none" }
        let picks = stride(from: 0, to: samples.count, by: max(1, samples.count / 8)).map { samples[$0] } + [samples[samples.count - 1]]
        return picks.map { "t=\(Format.number($0.0, 1))s \(ProcStatus.megabytes($0.1))MB" }.joined(separator: ", ")
    }

    /// Flat: the last quarter of the samples is within 10% (and 16 MB) of the first quarter's peak.
    static func isFlat(_ samples: [(Double, Int)]) -> Bool {
        guard samples.count >= 4 else { return true }
        let quarter = samples.count / 4
        let early = samples[..<quarter].map(\.1).max() ?? 0
        let late = samples[(samples.count - quarter)...].map(\.1).max() ?? 0
        return Double(late) <= Double(early) * 1.10 || late - early <= 16 << 20
    }
}
