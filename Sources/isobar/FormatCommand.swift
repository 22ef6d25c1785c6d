import Foundation
import ArgumentParser
import IsobarCore
import IsobarHost
import IsobarStdio
import Logging

struct FormatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Turn visible sets into map annotations (titles, units, locale) and selections into callouts.",
        discussion: """
        Input (stdin, NDJSON), as written by `isobar filter`:
          {"type":"visible","client":"alice","version":1,"full":true,"day":"today","field":"wind","upsert":[{"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.90468887898,"windDirection":270,"precipitation":0}],"remove":[]}
          {"type":"selection","client":"alice","id":"K1D3","day":"today","reason":"selected","station":{…}}
        Output (stdout, NDJSON), the client contract:
          {"type":"annotations","client":"alice","version":1,"full":true,"day":"today","field":"wind",…,"upsert":[{"id":"K1D3","coordinate":{"latitude":43.40332,"longitude":-98.82952},"title":"7 mph W →","subtitle":"PLATTE","wind":{"speed":6.9,"unit":"mph","calm":false,"from":"W","fromDegrees":270,"to":"E","arrow":"→","rotation":90}}],"remove":[]}
          {"type":"callout","client":"alice","id":"K1D3","day":"today","reason":"selected","clear":false,"title":"PLATTE","subtitle":"K1D3 · Today","coordinate":{…},"details":[{"label":"Temperature","value":"46.4 °F"},…]}
        Per-client choices in the viewport (field, units, windUnit, locale) win over these defaults.
        Other message types pass through unchanged.
        With --bus the same engine speaks the bus in process instead of stdin/stdout (what `isobar up`
        runs): subscribed at ISOBAR_SUB to the formatter's topics, publishing at ISOBAR_PUB exactly what
        `isobar plug` would publish for it.
        """)

    @Option(help: "Default field (temperature, wind, precipitation).")
    var field: Field = .temperature
    @Option(help: "Default units (imperial: °F, mph; metric: °C, km/h).")
    var units: Units = .imperial
    @Option(help: "Default wind unit (mph, kmh, knots); follows --units when omitted.")
    var windUnit: WindUnit?
    @Option(help: "Default locale (en, sk).")
    var locale: IsobarCore.Locale = .en
    @Option(help: "Longest accepted input line in bytes.")
    var maxLineBytes = Limits.lineBytes
    @Option(help: "GeoNames dump whose places' time zones a station without one takes (the nearest place's; default: $ISOBAR_PLACES, else data/places/cities500.txt; \"\": none, times in UTC).")
    var places = PlacesCommand.defaultFile
    @Flag(help: "Speak the bus in process (ISOBAR_PUB/ISOBAR_SUB, CURVE from the environment) instead of stdin/stdout: no plug needed.")
    var bus = false

    func run() async throws {
        LineOutput.ignoreSIGPIPE()
        Logs.bootstrap()
        let engine = FormatEngine(defaults: ResolvedPresentation(field: field, units: units, windUnit: windUnit, locale: locale),
                                  zones: Self.zones(places, logger: Logger(label: "format")))
        try await StageRunner.run(engine, bus: bus, maxLineBytes: maxLineBytes)
    }

    /// The zone index of the gazetteer `file`, or nil (logged) when there is none or it cannot be
    /// loaded: stations without a zone of their own are then shown in UTC.
    static func zones(_ file: String, logger: Logger) -> ZoneIndex? {
        guard !file.isEmpty else { return nil }
        let start = ContinuousClock.now
        guard let data = FileManager.default.contents(atPath: file) else {
            logger.warning("no zone index: cannot read \(file); stations without a time zone are shown in UTC")
            return nil
        }
        do {
            let zones = try data.withUnsafeBytes { buffer in try ZoneIndex(dump: buffer, file: file) }
            logger.info("zone index: \(zones.count) places from \(file) in \(ContinuousClock.now - start)")
            return zones
        } catch {
            logger.warning("no zone index: \(error); stations without a time zone are shown in UTC")
            return nil
        }
    }
}
