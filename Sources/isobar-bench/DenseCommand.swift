import ArgumentParser
import Foundation
import IsobarCore

/// `dense`: a whole-continent viewport over 1,000,000 stations, answered with clusters. In
/// process: the clustering alone, the filter's whole answer (a new client: cluster + `visible`
/// JSON), and the formatter on that answer. Through the pipeline: a client switching between
/// two continents, from viewport sent to annotations applied.
struct DenseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dense", abstract: "Whole-continent viewport over 1M stations: clustering in process and through the pipeline.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Stations loaded.")
    var stations = 1_000_000
    @Option(help: "Repetitions per run (each run reports its median).")
    var repeats = 10
    @Option(help: "The viewport's limit (most annotations before clustering) in process; the pipeline uses the default.")
    var limit = Viewport.defaultLimit
    @Flag(help: "Only the in-process measurement.")
    var inProcessOnly = false

    static let continents: [(String, Region)] = [
        ("North America", Region(clampingCenter: Coordinate(latitude: 45, longitude: -100), latitudeDelta: 50, longitudeDelta: 70)),
        ("Europe", Region(clampingCenter: Coordinate(latitude: 52, longitude: 15), latitudeDelta: 36, longitudeDelta: 50)),
    ]

    func run() async throws {
        let world = try WorldStations.load(path: common.world)
        let generated = StationGenerator(world: world, seed: common.seed).stations(count: stations)
        let (id, lines) = StationGenerator.snapshotLines(generated)
        let shadow = Shadow(lines: lines)
        guard let snapshot = shadow.snapshot else { throw ValidationError("the filter holds no snapshot") }
        var table = Table("dense: continent viewports over \(Format.int(stations)) stations, limit \(Format.int(limit)), \(common.runs) runs x \(repeats)",
                          header: ["what", "continent", "in view", "annotations", "ms median (min–max)"])
        var worst = 0.0
        for (name, region) in Self.continents {
            var inView = 0
            snapshot.grid.forEach(in: region) { _ in inView += 1 }
            let items = Clusterer.items(in: region, of: snapshot, limit: limit)
            let cluster = Summary(runs { _ in Self.seconds { _ = Clusterer.items(in: region, of: snapshot, limit: limit) } })
            var counter = 0
            var out = JSONWriter(capacity: 1 << 20)
            var visible: [UInt8] = []
            let filter = Summary(runs { _ in
                counter += 1
                var writer = JSONWriter()
                Viewport(client: "dense-\(counter)", region: region, limit: limit).write(to: &writer)
                let line = writer.bytes.dropLast()
                out.bytes.removeAll(keepingCapacity: true)
                let seconds = Self.seconds { Array(line).withUnsafeBytes { shadow.engine.handle(line: $0, now: 1_000, into: &out) } }
                visible = out.bytes
                return seconds
            })
            let formatter = FormatEngine()
            let format = Summary(runs { _ in
                var formatted = JSONWriter(capacity: 1 << 20)
                return Self.seconds { visible.dropLast().withUnsafeBytes { formatter.handle(line: $0, into: &formatted) } }
            })
            table.add(["Clusterer.items (in process)", name, Format.int(inView), Format.int(items.total), cluster.text(2, scale: 1000)])
            table.add(["FilterEngine.handle, new client (in process)", name, "", "\(Format.int(visible.count)) bytes", filter.text(2, scale: 1000)])
            table.add(["FormatEngine.handle of that answer (in process)", name, "", "", format.text(2, scale: 1000)])
            worst = max(worst, filter.median + format.median)
        }
        if !inProcessOnly {
            let perRun = try await Pipeline.run(isobar: Paths.isobar(common.isobar), name: "dense", plugs: common.plugs) { pipeline in
                try await pipeline.load(lines, id: id)
                return try await throughPipeline(pipeline)
            }
            let through = Summary(perRun)
            table.add(["through the pipeline (viewport -> applied)", "alternating", "", "", through.text(2, scale: 1000)])
            worst = max(worst, through.median)
        }
        let build = Summary(runs { _ in Self.seconds { _ = CellSummaries(grid: snapshot.grid, stations: snapshot.stations) } })
        table.note("cell summaries (built with each snapshot): \(Format.int(snapshot.cells.count)) non-empty grid cells, "
                   + "\(Format.number(Double(snapshot.cells.bytes) / 1_048_576, 1)) MB, built in \(build.text(2, scale: 1000)) ms")
        table.note("target: a continent answered in <= 20 ms: \(worst <= 0.020 ? "MET" : "NOT MET") (slowest median \(Format.ms(worst)) ms)")
        table.print()
    }

    /// A client switching between the two continents through the pipeline: each run's median
    /// viewport -> applied latency.
    private func throughPipeline(_ pipeline: Pipeline) async throws -> [Double] {
        let waiter = Waiter()
        pipeline.clients.onApplied = { client, _, _, count, time in waiter.applied(client: client, count: count, time: time) }
        var perRun: [Double] = []
        var version = 0
        for run in 0..<common.runs {
            let name = "dense-pipe-\(run)"
            waiter.expect(name)
            var latencies: [Double] = []
            for i in 0..<repeats {
                let region = Self.continents[i % 2].1
                var writer = JSONWriter()
                Viewport(client: name, region: region).write(to: &writer)
                version = i + 1
                pipeline.clients.await(name, version: version)
                let start = Clock.now()
                pipeline.client.publish(Array(writer.bytes.dropLast()))
                guard let (time, _) = await waiter.next(within: .seconds(10)) else { throw pipeline.failure("dense: no answer in 10 s") }
                latencies.append(time - start)
            }
            perRun.append(Summary(latencies).median)
        }
        return perRun
    }

    /// `common.runs` values, each the median of `repeats` calls of `body`.
    private func runs(_ body: (Int) -> Double) -> [Double] {
        (0..<common.runs).map { _ in Summary((0..<repeats).map(body)).median }
    }

    static func seconds(_ body: () -> Void) -> Double {
        let start = Clock.now()
        body()
        return Clock.now() - start
    }
}
