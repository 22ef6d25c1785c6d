import ArgumentParser
import IsobarCore
import IsobarNet
import IsobarSampleFeed
import Logging

struct SampleFeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-feed",
        abstract: "Serve today.json and tomorrow.json in the onX format over HTTP, drifting over time, with fault modes.",
        discussion: """
        GET /today.json, /tomorrow.json (ETag, Last-Modified, 304 on If-None-Match/If-Modified-Since), /health.
        GET /openweather.json, /darksky.json, /airvisual.json, /metar.json, /openmeteo.json, /nws.json: those formats' fixtures (FIXTURES/feeds/), as they are.
        --format makes /today.json and /tomorrow.json serve one of those instead of onX.
        Epoch 0 is the fixture exactly; every --period seconds the values drift deterministically (seeded).
        Faults per request with ?fault=500|404|delay=S|slow|truncate|drop|notjson|huge|badrecords|empty|redirectloop,
        or for every request with --fault; --error-rate P injects random transient faults.
        """)

    @Option(help: "Address to bind (loopback by default).")
    var host = "127.0.0.1"
    @Option(help: "Port (0 picks a free one).")
    var port = 8080
    @Option(help: "Directory with today.json and tomorrow.json.")
    var fixtures = "Fixtures"
    @Option(help: "Drift values over time: on or off.")
    var drift = "on"
    @Option(help: "Seconds per drift epoch.")
    var period: Double = 30
    @Option(help: "Seed of the drift and of random faults.")
    var seed: UInt64 = 1
    @Option(help: "A fault for every request (see above).")
    var fault: String?
    @Option(help: "Probability of a random transient fault per request.")
    var errorRate: Double = 0
    @Option(help: "What /today.json and /tomorrow.json serve: onx (drifting), openweather, darksky, airvisual, metar, openmeteo or nws (the fixture).")
    var format = "onx"

    func run() async throws {
        Logs.bootstrap()
        guard let chosen = FeedFormat(rawValue: format) else {
            throw ValidationError("--format must be onx, openweather, darksky, airvisual, metar, openmeteo or nws, got \(format)")
        }
        var options = SampleFeedOptions(host: host, port: port, fixturesDirectory: fixtures, drift: drift != "off",
                                        period: period, seed: seed, errorRate: errorRate, format: chosen)
        do {
            if let fault { options.fault = try SampleFeedFault(parsing: fault) }
            try options.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        throw ExitCode(try await runSampleFeed(options, logger: Logger(label: "sample-feed")))
    }
}
