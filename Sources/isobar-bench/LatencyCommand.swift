import ArgumentParser
import Foundation
import IsobarCore

/// `latency`: viewport -> applied annotations through a running pipeline (broker, filter plug,
/// format plug, a client in this process), with 181, 100,000 and 1,000,000 stations loaded,
/// `pans` random pans and zooms per run. Latency runs from just before publishing the viewport to
/// the moment the client has applied the annotation message carrying the expected version.
struct LatencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency", abstract: "p50/p99/max viewport -> applied annotations through the pipeline, per station count.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Station counts to load, comma-separated.")
    var sizes = "181,100000,1000000"
    @Option(help: "Pans and zooms per run.")
    var pans = 1000
    @Option(help: "Smallest latitudeDelta of a pan, degrees (longitudeDelta is 1.25x).")
    var minSpan = 0.5
    @Option(help: "Largest latitudeDelta of a pan, degrees.")
    var maxSpan = 3.0

    func run() async throws {
        let world = try WorldStations.load(path: common.world)
        let isobar = Paths.isobar(common.isobar)
        var table = Table("latency: \(pans) random pans/zooms per run, spans \(minSpan)–\(maxSpan)° lat x 1.25 lon, limit 500, \(common.runs) runs",
                          header: ["stations", "in view p50 / max", "annotations p50 / max", "updates/run",
                                   "p50 ms", "p99 ms", "max ms", "wrong sets / timeouts"])
        var target: Double?
        for size in sizes.split(separator: ",").compactMap({ Int($0) }) {
            let stations = StationGenerator(world: world, seed: common.seed).stations(count: size)
            let (id, lines) = StationGenerator.snapshotLines(stations)
            let shadow = Shadow(lines: lines)
            let result = try await Pipeline.run(isobar: isobar, name: "latency", plugs: common.plugs) { pipeline in
                try await pipeline.load(lines, id: id)
                return try await measure(pipeline: pipeline, shadow: shadow, size: size)
            }
            table.add([Format.int(size), "\(Format.int(result.inViewP50)) / \(Format.int(result.inViewMax))",
                       "\(Format.int(result.annotationsP50)) / \(Format.int(result.annotationsMax))",
                       Format.int(result.updates), Summary(result.p50).text(2, scale: 1000), Summary(result.p99).text(2, scale: 1000),
                       Summary(result.max).text(2, scale: 1000), "\(result.wrong) / \(result.timeouts)"])
            if size == 100_000 { target = Summary(result.p99).median }
        }
        table.note("pipeline: `isobar broker`; `isobar plug --name filter --sub station --sub snapshot --sub viewport/ --sub select/ --sub resync -- isobar filter`; `isobar plug --name format --sub visible --sub selection -- isobar format`; client: BusClient on `annotations/` in isobar-bench")
        table.note("each cell: median over runs of that run's percentile (min–max over runs); pans that change nothing get no update and are not timed")
        if let target { table.note("target: p99 <= 5 ms at 100,000 stations: \(target <= 0.005 ? "MET" : "NOT MET") (\(Format.ms(target)) ms)") }
        table.print()
    }

    struct Result {
        var p50: [Double] = [], p99: [Double] = [], max: [Double] = []
        var updates = 0, wrong = 0, timeouts = 0
        var inViewP50 = 0, inViewMax = 0, annotationsP50 = 0, annotationsMax = 0
    }

    func measure(pipeline: Pipeline, shadow: Shadow, size: Int) async throws -> Result {
        guard let snapshot = shadow.snapshot else { throw ValidationError("the shadow filter holds no snapshot") }
        let waiter = Waiter()
        pipeline.clients.onApplied = { client, _, _, count, time in waiter.applied(client: client, count: count, time: time) }
        var result = Result()
        var inView: [Int] = [], annotations: [Int] = []
        for run in 0..<common.runs {
            let name = "lat-\(size)-\(run)"
            var planner = PanPlanner(seed: common.seed &+ UInt64(run), spans: minSpan...maxSpan)
            let plan = (0..<pans).map { _ in
                shadow.answer(Viewport(client: name, region: planner.next(in: snapshot)))
            }
            waiter.expect(name)
            var latencies: [Double] = []
            for (line, answer) in plan {
                inView.append(answer.inView)
                guard let version = answer.version else {
                    pipeline.client.publish(line)
                    continue
                }
                annotations.append(answer.annotations)
                pipeline.clients.await(name, version: version)
                let start = Clock.now()
                pipeline.client.publish(line)
                guard let (time, count) = await waiter.next(within: .seconds(5)) else {
                    result.timeouts += 1
                    break
                }
                latencies.append(time - start)
                if count != answer.annotations { result.wrong += 1 }
            }
            latencies.sort()
            result.updates = latencies.count
            result.p50.append(Summary.percentile(sorted: latencies, 50))
            result.p99.append(Summary.percentile(sorted: latencies, 99))
            result.max.append(latencies.last ?? .nan)
        }
        inView.sort(); annotations.sort()
        result.inViewP50 = inView.isEmpty ? 0 : inView[inView.count / 2]
        result.inViewMax = inView.last ?? 0
        result.annotationsP50 = annotations.isEmpty ? 0 : annotations[annotations.count / 2]
        result.annotationsMax = annotations.last ?? 0
        return result
    }
}
