import ArgumentParser
import Foundation
import IsobarCore
import IsobarGateway
import IsobarHost
import IsobarNet
import IsobarStore
import Logging

struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run the whole pipeline, supervised: broker, fetch and persist under plug, filter, format and places on the bus in process (--plugs: under plug too), the gateway.",
        discussion: """
        Every process is restarted with backoff when it exits, its log lines are prefixed with its name,
        and SIGINT/SIGTERM stops them all (stages first, broker last) and exits 0.
        With --sample the built-in sample feed (isobar sample-feed, real HTTP on loopback) is started and
        used instead of the onX endpoints, so the pipeline shows live, drifting data without internet.
        Stored snapshots live in --data-dir; a second `up` continues from them (offline start).
        Endpoints: ISOBAR_PUB / ISOBAR_SUB (defaults tcp://127.0.0.1:5559 / :5560).
        Attach a client with: isobar attach --client alice --viewport 40.924,-108.0955,25,20
        """)

    @Flag(help: "Serve and use the built-in sample feed instead of the onX endpoints.")
    var sample = false
    @Option(help: "Port of the sample feed.")
    var samplePort = 8089
    @Option(help: "With --sample, the formats fetched from it, comma-separated (onx, openweather, darksky, airvisual, metar, openmeteo, nws; or all): several feeds at once, ids prefixed by format.")
    var sampleFormats = "onx"
    @Option(help: "Seconds per sample-feed drift epoch.")
    var samplePeriod: Double = 30
    @Option(help: "Fixtures directory for the sample feed.")
    var fixtures = "Fixtures"
    @Option(help: "Today's feed (URL or file, optionally FORMAT+SOURCE; repeatable: fetch --today); default: the onX endpoint, or the sample feed with --sample.")
    var today: [String] = []
    @Option(help: "Tomorrow's feed (as --today; repeatable).")
    var tomorrow: [String] = []
    @Option(help: "Seconds between feed polls.")
    var interval: Double?
    @Option(help: "The feeds' format (fetch --format): onx, openweather, darksky, airvisual, metar, openmeteo, nws or auto.")
    var format: FeedFormat = .onx
    @Option(name: .customLong("openweather-units"), help: "What an OpenWeather request asked for with units= (fetch --openweather-units).")
    var openWeatherUnits: OpenWeatherFeed.Units = .standard
    @Option(help: "Minutes after which a station's data is marked stale (filter --stale-after; 0: never).")
    var staleAfter: Double = 60
    @Option(help: "Longest retry wait in seconds after feed failures (fetch --backoff-cap).")
    var backoffCap: Double = 300
    @Option(help: "Largest accepted feed body in bytes (fetch --max-body-bytes).")
    var maxBodyBytes = Limits.feedBodyBytes
    @Option(help: "Data directory for the SQLite store.")
    var dataDir = PersistOptions.defaultDataDirectory
    @Option(help: "Formatter default units (imperial, metric).")
    var units = "imperial"
    @Option(help: "Formatter default locale (en, sk).")
    var locale = "en"
    @Option(help: "Where the gateway (WebSocket, web map, /healthz, /metrics) listens, HOST:PORT.")
    var gateway = "127.0.0.1:8080"
    @Flag(help: "Do not start the gateway.")
    var noGateway = false
    @Option(help: "Filter shards (1 to 64): each serves the clients of its partitions (PROTOCOL.md, Filter shards).")
    var filters = 1
    @Flag(help: "Host the built-in filter and format under `isobar plug` (stdin/stdout), as a third-party stage is hosted, instead of in process on the bus (--bus).")
    var plugs = false
    @Flag(help: "Chain the formatter behind each filter in its process (`filter --chain-format`) instead of running `isobar format` on its own: the same messages reach clients, with no `visible` hop (BENCHMARKS.md).")
    var chainFormat = false
    @OptionGroup var snapshotPolicy: SnapshotPolicyArguments

    @Option(help: "GeoNames dump the places stage loads (places --places), and the formatter's time zones (format --places).")
    var places = PlacesCommand.defaultFile
    @Flag(help: "Forecasts on demand: run the forecast stage (isobar forecast, under plug) and the filter with --forecasts, so a detail shows its cell's Open-Meteo forecast.")
    var forecasts = false
    @Option(help: "With --forecasts, the forecast stage's URL (forecast --url); default: Open-Meteo's, or with --sample the sample feed's Open-Meteo fixture.")
    var forecastURL: String?
    @Flag(help: "Do not start the places stage (geocode and reverse requests then go unanswered).")
    var noPlaces = false

    func run() async throws {
        Logs.bootstrap()
        guard Shard(index: 0, count: filters) != nil else { throw ValidationError("--filters must be 1 to 64, not \(filters)") }
        let me = Self.executablePath()
        var services = [ServiceSpec(name: "broker", command: me, arguments: ["broker"])]
        var todayURLs = today.isEmpty ? [FetchOptions.defaultToday] : today
        var tomorrowURLs = tomorrow.isEmpty ? [FetchOptions.defaultTomorrow] : tomorrow
        if sample {
            services.append(ServiceSpec(name: "sample-feed", command: me, arguments: [
                "sample-feed", "--port", String(samplePort), "--fixtures", fixtures, "--period", String(samplePeriod)]))
            let formats = try Self.sampleFormatList(sampleFormats)
            let base = "http://127.0.0.1:\(samplePort)"
            // onX from the drifting day files; each other format from its own path (both days).
            let others = formats.filter { $0 != .onx }.map { "\($0.rawValue)+\(base)/\($0.rawValue).json" }
            if today.isEmpty { todayURLs = (formats.contains(.onx) ? ["\(base)/today.json"] : []) + others }
            if tomorrow.isEmpty { tomorrowURLs = (formats.contains(.onx) ? ["\(base)/tomorrow.json"] : []) + others }
        }
        let pollInterval = interval ?? (sample ? min(5, samplePeriod) : 60)
        let favoritesFile = dataDir + "/" + PersistOptions.favoritesFileName
        services += [
            ServiceSpec(name: "persist", command: me, arguments: Self.plug(PersistStage.self) + [me, "persist", "--data-dir", dataDir] + snapshotPolicy.arguments, startDelay: .milliseconds(200), stopTimeout: ServiceSpec.plugStopTimeout),
        ] + (chainFormat ? [] : [
            plugs
                ? ServiceSpec(name: "format", command: me, arguments: Self.plug(FormatEngine.self) + [me, "format", "--units", units, "--locale", locale, "--places", places], stopTimeout: ServiceSpec.plugStopTimeout)
                : ServiceSpec(name: "format", command: me, arguments: ["format", "--bus", "--units", units, "--locale", locale,
                                                                       "--places", places]),
        ]) + (noPlaces ? [] : [
            plugs
                ? ServiceSpec(name: "places", command: me, arguments: Self.plug(PlacesEngine.self) + [me, "places", "--places", places], stopTimeout: ServiceSpec.plugStopTimeout)
                : ServiceSpec(name: "places", command: me, arguments: ["places", "--bus", "--places", places]),
        ]) + (0..<filters).map { index in
            // The filter starts last and asks for a resync, so persist and fetch answer it once their
            // subscriptions are in place. One filter, or shard k of N each subscribed to its client
            // partitions; with --chain-format, each with the formatter chained behind it.
            let shard = Shard(index: index, count: filters) ?? .whole
            let name = filters == 1 ? "filter" : "filter-\(index)"
            let sharding = filters == 1 ? [] : ["--shard", shard.description]
            let chaining = chainFormat ? ["--chain-format", "--units", units, "--locale", locale] : []
            let filter = [me, "filter", "--request-resync", "--favorites", favoritesFile, "--stale-after", String(staleAfter)] + sharding + chaining
                + snapshotPolicy.arguments + (forecasts ? ["--forecasts"] : [])
            guard plugs else {
                return ServiceSpec(name: name, command: me, arguments: Array(filter.dropFirst()) + ["--bus"], startDelay: .milliseconds(300))
            }
            return ServiceSpec(name: name, command: me, arguments: Self.plug(FilterEngine.self, name: name, sharding: sharding) + filter,
                startDelay: .milliseconds(300), stopTimeout: ServiceSpec.plugStopTimeout)
        } + [
            ServiceSpec(name: "fetch", command: me, arguments: Self.plug(FeedFetcher.self) + [me, "fetch"] + todayURLs.flatMap { ["--today", $0] } + tomorrowURLs.flatMap { ["--tomorrow", $0] } + [
                "--interval", String(pollInterval),
                "--backoff-cap", String(backoffCap), "--max-body-bytes", String(maxBodyBytes), "--format", format.rawValue,
                "--openweather-units", openWeatherUnits.rawValue],
                startDelay: .milliseconds(300), stopTimeout: ServiceSpec.plugStopTimeout),
        ]
        if forecasts {
            let url = forecastURL ?? (sample ? "http://127.0.0.1:\(samplePort)/openmeteo.json?latitude={latitude}&longitude={longitude}" : ForecastEngine.defaultURL)
            services.append(ServiceSpec(name: "forecast", command: me, arguments: Self.plug(ForecastEngine.self) + [me, "forecast", "--url", url],
                startDelay: .milliseconds(300), stopTimeout: ServiceSpec.plugStopTimeout))
        }
        var readiness: GatewayReadiness?
        if !noGateway {
            guard let address = ListenAddress(parsing: gateway), address.isLoopback else {
                throw ValidationError("--gateway must be a loopback HOST:PORT (run `isobar gateway --allow-remote` for more), not \(gateway)")
            }
            // One name for every run of the gateway: a restarted gateway is the same holder of its
            // clients' names to the filter, so they reconnect and are answered at once instead of
            // being refused for the old holder's 3 s claim grace (PROTOCOL.md "Client names across gateways").
            let gatewayName = GatewayOptions().name
            // Started before fetch, so it is on the bus for fetch's first `status` (the feeds' formats,
            // which it keeps for every page that connects later: the web map's credits).
            let fetchIndex = services.firstIndex { $0.name == "fetch" } ?? services.endIndex
            services.insert(ServiceSpec(name: GatewayReadiness.service, command: me, arguments: ["gateway", "--listen", gateway, "--name", gatewayName],
                                        startDelay: .milliseconds(300)), at: fetchIndex)
            readiness = GatewayReadiness(address)
        }
        let supervisor = Supervisor(services: services, logger: Logger(label: "up")) { [readiness] service, line in
            readiness?.observe(service: service, line: line)
        }
        throw ExitCode(await supervisor.runUntilSignalled())
    }

    /// `plug --name NAME [--shard K/N] --sub T ... --`: a stage under `isobar plug`, subscribed to
    /// what it consumes (``Stage/subscriptions``); its command follows.
    static func plug<S: Stage>(_ stage: S.Type, name: String? = nil, sharding: [String] = []) -> [String] {
        ["plug", "--name", name ?? S.stage] + sharding + S.subscriptions.flatMap { ["--sub", $0] } + ["--"]
    }

    /// This binary's absolute path, so children run the same build.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return CommandLine.arguments[0]
    }

    /// `onx,darksky` or `all` as formats, in a fixed order; a clear error for anything else.
    static func sampleFormatList(_ text: String) throws -> [FeedFormat] {
        let known: [FeedFormat] = [.onx, .openweather, .darksky, .airvisual, .metar, .openmeteo, .nws]
        if text == "all" { return known }
        var chosen: [FeedFormat] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let format = FeedFormat(rawValue: name), known.contains(format) else {
                throw ValidationError("--sample-formats: \(name) is not one of onx, openweather, darksky, airvisual, metar, openmeteo, nws, all")
            }
            if !chosen.contains(format) { chosen.append(format) }
        }
        guard !chosen.isEmpty else { throw ValidationError("--sample-formats: name at least one format") }
        return known.filter(chosen.contains)
    }
}
