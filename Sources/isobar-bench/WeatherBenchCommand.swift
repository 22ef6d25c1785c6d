import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// `weather`: the "tap anywhere" request through the pipeline, `weather` (client -> places) ->
/// `spot` (places -> filter) -> `ambient` (filter -> format) -> `conditions` (format -> client),
/// against a pan (viewport -> applied annotations, as `latency` measures it) on the same running
/// pipeline in the same window. Issue 28's target: the weather at a point no slower than a pan.
/// Each point is a generated station's coordinate moved by up to 0.05°, so a station is always
/// within the default 50 km radius: an answer without a station counts as wrong.
struct WeatherBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weather", abstract: "The weather at a point (places -> filter -> format) against a pan, through the pipeline: p50/p99 ms.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Stations loaded.")
    var stations = 100_000
    @Option(help: "Weather requests, and pans, per run.")
    var requests = 300
    @Option(help: "The GeoNames dump the places stage loads (default: the places stage's own).")
    var places: String?

    func run() async throws {
        let world = try WorldStations.load(path: common.world)
        let isobar = Paths.isobar(common.isobar)
        let generated = StationGenerator(world: world, seed: common.seed).stations(count: stations)
        let (id, lines) = StationGenerator.snapshotLines(generated)
        let shadow = Shadow(lines: lines)
        try await Pipeline.run(isobar: isobar, name: "weather", plugs: common.plugs) { pipeline in
            let stage = try await Children.start(isobar, ["places", "--bus"] + (places.map { ["--places", $0] } ?? []),
                                                 environment: pipeline.environment, log: pipeline.scratch + "/places.log")
            try await ensuring({ try await measure(pipeline: pipeline, lines: lines, id: id, generated: generated, shadow: shadow) },
                               finally: { await Children.stop(stage) })
        }
    }

    /// Weather requests and pans on a running pipeline with the places stage.
    private func measure(pipeline: Pipeline, lines: [[UInt8]], id: String, generated: [Station], shadow: Shadow) async throws {
        try await pipeline.load(lines, id: id)

        let waiter = Waiter()
        let endpoints = BrokerEndpoints(frontend: pipeline.environment["ISOBAR_PUB"] ?? "", backend: pipeline.environment["ISOBAR_SUB"] ?? "")
        let listener = try BusClient(endpoints: endpoints, topics: ["conditions/"])
        defer { listener.close() }
        listener.start(onMessage: { topic, payload in
            let client = String(topic.dropFirst("conditions/".count))
            let object = try? JSONObject(storage: payload)
            let found = object.flatMap { o in o.field("station").flatMap { o.object($0) } } != nil
            waiter.applied(client: client, count: found ? 1 : 0, time: Clock.now())
        })
        try await handshake(pipeline: pipeline, waiter: waiter)

        var p50: [Double] = [], p99: [Double] = [], maxima: [Double] = []
        var wrong = 0, timeouts = 0
        var rng = SplitMix64(seed: common.seed &+ 7)
        for run in 0..<common.runs {
            let name = "wx-\(run)"
            waiter.expect(name)
            var latencies: [Double] = []
            for _ in 0..<requests {
                let station = generated[Int(rng.next() % UInt64(generated.count))]
                let latitude = min(90, max(-90, station.coordinate.latitude + rng.uniform(-0.05...0.05)))
                let longitude = min(180, max(-180, station.coordinate.longitude + rng.uniform(-0.05...0.05)))
                let start = Clock.now()
                pipeline.client.publish(Self.request(client: name, latitude: latitude, longitude: longitude))
                guard let (time, found) = await waiter.next(within: .seconds(5)) else {
                    timeouts += 1
                    break
                }
                latencies.append(time - start)
                if found != 1 { wrong += 1 }
            }
            latencies.sort()
            p50.append(Summary.percentile(sorted: latencies, 50))
            p99.append(Summary.percentile(sorted: latencies, 99))
            maxima.append(latencies.last ?? .nan)
        }

        let pan = try await LatencyCommand.parse(["--pans", String(requests), "--runs", String(common.runs), "--seed", String(common.seed)])
            .measure(pipeline: pipeline, shadow: shadow, size: stations)
        var table = Table("weather: \(requests) requests (and pans) per run, \(Format.int(stations)) stations, \(common.runs) runs, one pipeline",
                          header: ["request", "p50 ms", "p99 ms", "max ms", "wrong / timeouts"])
        table.add(["weather at a point (places -> filter -> format)", Summary(p50).text(2, scale: 1000), Summary(p99).text(2, scale: 1000),
                   Summary(maxima).text(2, scale: 1000), "\(wrong) / \(timeouts)"])
        table.add(["pan (viewport -> applied annotations)", Summary(pan.p50).text(2, scale: 1000), Summary(pan.p99).text(2, scale: 1000),
                   Summary(pan.max).text(2, scale: 1000), "\(pan.wrong) / \(pan.timeouts)"])
        table.note("pipeline: `isobar broker`, filter and format as `isobar up` runs them, `isobar places --bus`; clients: BusClients in isobar-bench")
        table.note("each cell: median over runs of that run's percentile (min–max over runs); a weather answer without a station is wrong (every point is within 0.05° of one)")
        let weatherP50 = Summary(p50).median, panP50 = Summary(pan.p50).median
        table.note("target: the weather at a point no slower than a pan (p50): \(weatherP50 <= panP50 ? "MET" : "NOT MET") (\(Format.ms(weatherP50)) vs \(Format.ms(panP50)) ms)")
        table.print()
    }

    /// Sends a weather request until one is answered: the places stage has loaded its gazetteer
    /// and every subscription on the way is in place.
    private func handshake(pipeline: Pipeline, waiter: Waiter) async throws {
        waiter.expect("wx-probe")
        for _ in 0..<60 {
            pipeline.client.publish(Self.request(client: "wx-probe", latitude: 0, longitude: 0))
            if await waiter.next(within: .seconds(1)) != nil {
                // Answers to the earlier probes may still come: let them arrive before measuring
                // (the drain ends after 0.5 s with none: a quiet window).
                while await waiter.next(within: .milliseconds(500)) != nil {}
                return
            }
        }
        throw pipeline.failure("the places stage never answered a weather request")
    }

    static func request(client: String, latitude: Double, longitude: Double) -> [UInt8] {
        var writer = JSONWriter()
        writer.objectStart()
        writer.key("type"); writer.string("weather")
        writer.key("client"); writer.string(client)
        writer.key("latitude"); writer.number(latitude)
        writer.key("longitude"); writer.number(longitude)
        writer.objectEnd()
        return writer.bytes
    }
}
