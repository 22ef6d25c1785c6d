import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost
import IsobarStdio
import Logging

struct PlacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Answer place requests: geocode (a name -> ranked places) and reverse (a point -> the nearest place).",
        discussion: """
        Input (stdin, NDJSON):
          {"type":"geocode","client":"alice","query":"springfield, il","limit":5}
          {"type":"geocode","client":"alice","id":1835848}
          {"type":"reverse","client":"alice","latitude":42.432356,"longitude":25.637389,"radiusKm":100}
        Output (stdout, NDJSON):
          {"type":"locations","client":"alice","query":"springfield, il","results":[{"match":"exact","id":4250542,"name":"Springfield","admin1":"Illinois","countryCode":"US","country":"United States",…}]}
          {"type":"vicinity","client":"alice","latitude":42.432356,"longitude":25.637389,"radiusKm":100,"place":{"id":726848,"name":"Stara Zagora",…},"distanceKm":0.43,"bearing":…}
        Other message types pass through unchanged. The gazetteer is a GeoNames dump (cities500.txt,
        cities15000.txt, allCountries.txt ...; GeoNames data, CC BY 4.0): by default the one
        scripts/deps.sh builds, data/places/cities500.txt. A file that cannot be loaded is logged and
        the stage runs on, answering each request with an error saying no gazetteer is loaded.
        With --bus the same engine speaks the bus in process (what `isobar up` runs).
        """)

    /// The gazetteer loaded when no `--places` is given: `ISOBAR_PLACES` when set, else where
    /// scripts/deps.sh writes the default (relative to the working directory).
    static var defaultFile: String {
        ProcessInfo.processInfo.environment["ISOBAR_PLACES"].flatMap { $0.isEmpty ? nil : $0 } ?? "data/places/cities500.txt"
    }

    @Option(help: "GeoNames dump to load (tab-separated, 19 columns; default: $ISOBAR_PLACES, else data/places/cities500.txt).")
    var places = PlacesCommand.defaultFile
    @Option(help: "Longest accepted input line in bytes.")
    var maxLineBytes = Limits.lineBytes
    @Flag(help: "Speak the bus in process (ISOBAR_PUB/ISOBAR_SUB, CURVE from the environment) instead of stdin/stdout.")
    var bus = false

    func run() async throws {
        LineOutput.ignoreSIGPIPE()
        Logs.bootstrap()
        let logger = Logger(label: "places")
        let engine = Self.load(places, logger: logger)
        try await StageRunner.run(engine, bus: bus, maxLineBytes: maxLineBytes)
    }

    /// The engine over the gazetteer in `file`, or without one (and the reason, logged) when it
    /// cannot be read or loaded.
    static func load(_ file: String, logger: Logger) -> PlacesEngine {
        let start = ContinuousClock.now
        do throws(PlacesError) {
            guard let gazetteer = try Gazetteer.load(file: file) else {
                let reason = "no gazetteer is loaded: cannot read \(file)"
                logger.error("\(reason)")
                return PlacesEngine(gazetteer: nil, unavailable: reason)
            }
            let report = gazetteer.report
            logger.info("loaded \(report.places) places from \(file) in \(ContinuousClock.now - start)")
            if report.skipped > 0 {
                let shown = report.skippedRows.map { "\(file):\($0.line): \($0.reason)" }.joined(separator: "; ")
                logger.warning("skipped \(report.skipped) bad rows: \(shown)\(report.skipped > report.skippedRows.count ? "; ..." : "")")
            }
            return PlacesEngine(gazetteer: gazetteer)
        } catch {
            let reason = "no gazetteer is loaded: \(error)"
            logger.error("\(reason)")
            return PlacesEngine(gazetteer: nil, unavailable: reason)
        }
    }
}
