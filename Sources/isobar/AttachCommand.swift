import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost
import Logging
import IsobarStdio

struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Attach a map client: send viewport updates, receive live annotations and callouts.",
        discussion: """
        On a terminal: a full-screen text map of the viewport. Arrows pan, + and - zoom, d toggles the day,
        f cycles the field, u cycles units, Enter selects the station nearest the centre, q quits.

        Otherwise (or with --plain): reads client-contract messages as NDJSON on stdin and publishes them
        ("client" is filled in when missing), and prints every \(MessageTypes.standard.answers(to: .attach).joined(separator: "/")) message for this client
        as NDJSON on stdout:
          stdin:  {"type":"viewport","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"wind"}
                  {"type":"select","id":"K1D3"}
                  {"type":"nearest","latitude":48.7,"longitude":21.25}
                  {"type":"search","query":"kosice"}
                  {"type":"favorite","id":"K1D3","on":true}
          stdout: {"type":"annotations","client":"alice","version":1,"full":true,…,"upsert":[{"id":"K1D3","coordinate":{…},"title":"46°",…}],"remove":[]}
                  {"type":"callout","client":"alice","id":"K1D3",…}
        A gap in "version" triggers a resync request; the viewport is re-sent when the filter restarts and
        every --heartbeat seconds with the version applied, so the filter keeps an idle client and resends
        the whole set when an answer was lost (a broker or stage restart on the way). At end of stdin it waits
        --drain seconds for the last answers, then exits 0. Input lines are held until the filter's first answer
        (so a select right after start is not refused for want of a viewport); at end of stdin it waits up to
        5 s for that answer, then sends them anyway.
        """)

    @Option(help: "Client name (topic annotations/NAME).")
    var client: String
    @Option(help: "Initial viewport LAT,LON,DLAT,DLON.")
    var viewport: RegionArgument?
    @Option(help: "Initial day (today, tomorrow).")
    var day: Day = .today
    @Option(help: "Initial field (temperature, wind, precipitation).")
    var field: Field = .temperature
    @Option(help: "Units (imperial, metric).")
    var units: Units?
    @Option(help: "Wind unit (mph, kmh, knots).")
    var windUnit: WindUnit?
    @Option(help: "Locale (en, sk).")
    var locale: IsobarCore.Locale?
    @Option(help: "Most annotations before the filter clusters.")
    var limit: Int?
    @Option(help: "Seconds to keep listening after stdin ends (plain mode).")
    var drain: Double = 1
    @Option(help: "Seconds between heartbeats (the viewport with the version applied): they keep the client alive and recover lost answers.")
    var heartbeat: Double = AttachSession.defaultHeartbeat
    @Flag(help: "Plain NDJSON mode even on a terminal.")
    var plain = false

    func run() async throws {
        Logs.bootstrap(level: .warning)
        LineOutput.ignoreSIGPIPE()
        guard !client.isEmpty, !client.contains("/") else { throw ValidationError("--client must be a non-empty name without '/'") }
        guard heartbeat >= 0.1 else { throw ValidationError("--heartbeat must be at least 0.1 seconds, not \(heartbeat)") }
        let presentation = Presentation(field: field, units: units, windUnit: windUnit, locale: locale)
        var initial: Viewport? = nil
        if let viewport {
            initial = Viewport(client: client, region: viewport.region, day: day, presentation: presentation, limit: limit ?? Viewport.defaultLimit)
        }
        let session: AttachSession
        do {
            session = try AttachSession(client: client, initial: initial, heartbeat: heartbeat)
        } catch {
            throw CLIError("cannot connect to the bus: \(error)")
        }
        let stop = StopFlag()
        let interactive = !plain && isatty(0) == 1 && isatty(1) == 1
        let start = initial ?? Viewport(client: client, region: .initialMap, day: day, presentation: presentation,
                                        limit: limit ?? Viewport.defaultLimit)
        let drain = drain
        // One runtime: the loop is a BlockingService in a ServiceGroup; SIGTERM/SIGINT raise `stop`,
        // which ends the input loop (and restores the terminal), then the session closes.
        let service = BlockingService(name: "attach", body: {
            if interactive {
                let map = TerminalMap(session: session, start: start, stop: stop)
                map.run()
                session.close()
                withExtendedLifetime(map) {}  // redraws reach it through a weak reference until here
                return 0
            }
            session.printMessages = true
            session.start()
            LineInput.run(stop: stop,
                          line: { raw in session.publishFromInput(raw) },
                          tooLong: { length, _ in FileHandle.standardError.write(Data("attach: skipped an input line of \(length) bytes\n".utf8)) },
                          drained: {})
            session.finishInput(stop: stop)  // the lines held for the filter's first answer
            _ = stop.wait(timeout: drain)  // timer: the last answers' window, which a stop ends at once
            session.close()
            return 0
        }, stop: { stop.raise() }, kill: { stop.raise() })
        throw ExitCode(await service.runUntilSignalled(logger: Logger(label: "attach")))
    }
}
