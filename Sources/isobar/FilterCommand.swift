import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost
import IsobarStore
import IsobarStdio
import Logging

struct FilterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Keep each client's visible stations: full sets for new views, then only what entered, left or changed.",
        discussion: """
        Input (stdin, NDJSON):
          {"type":"station","day":"today","snapshot":"today-5f1c…","seq":0,"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.90468887898,"windDirection":270,"precipitation":0}
          {"type":"snapshot","day":"today","snapshot":"today-5f1c…","count":181,"source":"feed","fetchedAt":1795000000,"ageSeconds":0}
          {"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"temperature"}
          {"type":"select","client":"alice","id":"K1D3"}
          {"type":"resync","client":"alice"}
          {"type":"favorite","client":"alice","id":"K1D3","on":true}
        Output (stdout, NDJSON):
          {"type":"visible","client":"alice","version":1,"full":true,"day":"today","snapshot":"today-5f1c…","source":"feed","fetchedAt":1795000000,"ageSeconds":0,"field":"temperature","upsert":[{"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.90468887898,"windDirection":270,"precipitation":0}],"remove":[]}
          {"type":"selection","client":"alice","id":"K1D3","day":"today",…,"reason":"selected","station":{…}}
          {"type":"pinned","client":"alice","reason":"added","items":[{"id":"K1D3","today":{…},"tomorrow":null}]}
          {"type":"error","stage":"filter","message":"latitude 91 is outside [-90, 90]","excerpt":"…","code":"out-of-range"}
          {"type":"resync","reason":"incomplete snapshot …"}   (asks the publishers to replay)
        A snapshot takes effect only when its end marker arrives with every station. Viewports
        holding more than `limit` stations (default 500) get clusters. Other message types pass through.
        With --bus the same engine speaks the bus in process instead of stdin/stdout (what `isobar up`
        runs): subscribed at ISOBAR_SUB to the filter's topics (with --shard, its partitions only),
        publishing at ISOBAR_PUB exactly what `isobar plug` would publish for it.
        With --chain-format the formatter runs behind the filter in this process: the output is what
        `isobar filter | isobar format` would print (\(MessageTypes.standard.written(onlyBy: .format).joined(separator: ", "));
        other lines as the filter writes them), with no visible line between them
        (PROTOCOL.md, "The bus").
        """)

    @Option(help: "Register a viewport LAT,LON,DLAT,DLON for a pinned client (pipe use).")
    var viewport: RegionArgument?
    @Option(help: "Client name for --viewport.")
    var client = "default"
    @Option(help: "Day for --viewport (today, tomorrow).")
    var day: Day = .today
    @Option(help: "Field for --viewport (temperature, wind, precipitation).")
    var field: Field?
    @Option(help: "Most annotations before clustering, for --viewport.")
    var limit = Viewport.defaultLimit
    @Option(help: "Forget clients silent for this many seconds.")
    var idle: Double = 600
    @Option(help: "Most clients held; beyond it the least recently seen is dropped to make room.")
    var maxClients = FilterOptions().maxClients
    @Option(help: "Forget a gateway's clients when it has sent no lease for this many seconds.")
    var leaseTimeout: Double = 30
    @Option(help: "Longest accepted input line in bytes.")
    var maxLineBytes = Limits.lineBytes
    @Option(help: "SQLite file keeping each client's favorites across restarts (created if missing; default: in memory only).")
    var favorites: String?
    @Option(help: "Mark a station \"stale\" when its observation (or, without observedAt, its snapshot's fetch) is older than this many minutes; 0 never marks one.")
    var staleAfter: Double = 60
    @Option(help: "Serve only the clients of shard K of N (K/N): other clients' messages are left to their shard. Run it under `isobar plug --shard K/N`.")
    var shard: Shard = .whole
    @OptionGroup var snapshotPolicy: SnapshotPolicyArguments
    @Flag(help: "Forecasts on demand: a detail without a forecast of its own asks the forecast stage (isobar forecast) for its cell's (outlook) and shows it when it arrives.")
    var forecasts = false
    @Flag(help: "Write a resync request at start so publishers replay their snapshots (used on the bus).")
    var requestResync = false
    @Flag(help: "Speak the bus in process (ISOBAR_PUB/ISOBAR_SUB, CURVE from the environment) instead of stdin/stdout: no plug needed.")
    var bus = false
    @Flag(help: "Run the formatter in this process behind the filter: write what `isobar format` would make of the filter's lines (annotations, callouts, …) instead of them.")
    var chainFormat = false
    @Option(help: "With --chain-format: the formatter's default units (imperial, metric).")
    var units: Units = .imperial
    @Option(help: "With --chain-format: the formatter's default wind unit (mph, kmh, knots); follows --units when omitted.")
    var windUnit: WindUnit?
    @Option(help: "With --chain-format: the formatter's default locale (en, sk).")
    var locale: IsobarCore.Locale = .en

    func run() async throws {
        LineOutput.ignoreSIGPIPE()
        var options = FilterOptions()
        options.idleSeconds = idle
        options.leaseTimeout = leaseTimeout
        options.shard = shard
        options.snapshotPolicy = snapshotPolicy.policy
        guard maxClients >= 1 else { throw ValidationError("--max-clients must be at least 1, got \(maxClients)") }
        options.maxClients = maxClients
        options.forecasts = forecasts
        guard staleAfter.isFinite, staleAfter >= 0 else { throw ValidationError("--stale-after must be a non-negative number of minutes, got \(staleAfter)") }
        options.staleAfter = staleAfter > 0 ? staleAfter * 60 : nil
        let backing: any FavoritesBacking
        if let favorites {
            let store = FavoritesStore(path: favorites)
            if let problem = store.writeError {
                // Also an `error` line on the first favorites use; here for the operator at once.
                FileHandle.standardError.write(Data("isobar filter: favorites: \(problem) Changes to favorites are kept in memory only.\n".utf8))
            }
            backing = store
        } else {
            backing = InMemoryFavorites()
        }
        let chain = chainFormat
            ? FormatChain(format: FormatEngine(defaults: ResolvedPresentation(field: .temperature, units: units, windUnit: windUnit, locale: locale)))
            : nil
        if let chain { options = chain.chained(options) }
        let engine = FilterEngine(options: options, favorites: backing)
        if let viewport {
            engine.register(Viewport(client: client, region: viewport.region, day: day,
                                     presentation: Presentation(field: field), limit: limit))
        }
        if bus { Logs.bootstrap() }
        // A monotonic clock: the filter only measures intervals (idle clients, resync and resend
        // backoff), which a wall-clock step backwards would stall. The tick runs the missing-day
        // resync schedule and the idle sweep even when no message arrives.
        try await StageRunner.run(FilterStage(engine: engine, chain: chain, requestResync: requestResync),
                                  bus: bus, shard: shard, maxLineBytes: maxLineBytes)
    }
}
