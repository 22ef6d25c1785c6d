import ArgumentParser
import Foundation
import IsobarCore

/// `filter-input`: writes a recorded filter input, the one `filter-replay` and `isobar filter`
/// read: a generated snapshot (station lines, then its end marker), then every client's viewports
/// as the `clients` benchmark plans them (the same stations, seeds and walks; only pans that change
/// the client's set, so each viewport is one update), interleaved round by round as its bursts
/// send them. Prints how many lines come before the first round of pans and the first full sets,
/// for `filter-replay --warm`.
struct FilterInputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter-input", abstract: "Write a snapshot and clients' planned viewports as one NDJSON file (the filter's input).")

    @Option(help: "Output file.")
    var output: String
    @Option(help: "The world station CSV that generated stations are jittered from.")
    var world = Paths.defaultWorld
    @Option(help: "Seed for generated stations and pans.")
    var seed: UInt64 = 42
    @Option(help: "Stations in the snapshot.")
    var stations = 100_000
    @Option(help: "Number of clients.")
    var clients = 300
    @Option(help: "Viewports per client.")
    var steps = 20
    @OptionGroup var pans: PanOptions
    @Option(help: "The snapshot's fetchedAt, Unix seconds (default: now, so nothing is stale for an hour).")
    var fetchedAt: Double?

    func run() throws {
        let generated = StationGenerator(world: try WorldStations.load(path: world), seed: seed).stations(count: stations)
        let (_, lines) = StationGenerator.snapshotLines(generated, fetchedAt: fetchedAt ?? StationGenerator.fetchedNow())
        let shadow = Shadow(lines: lines)
        guard let snapshot = shadow.snapshot else { throw ValidationError("the shadow filter holds no snapshot") }
        var plans: [[[UInt8]]] = []
        for i in 0..<clients {
            var planner = pans.planner(seed: seed, client: i)
            var plan: [[UInt8]] = []
            var attempts = 0
            while plan.count < steps && attempts < steps * 20 {
                attempts += 1
                let (line, answer) = shadow.answer(Viewport(client: String(format: "c%04d", i), region: planner.next(in: snapshot)))
                if answer.version != nil { plan.append(line) }
            }
            guard plan.count == steps else { throw ValidationError("could not plan \(steps) changing pans for client \(i)") }
            plans.append(plan)
        }
        var text: [UInt8] = []
        for line in lines { text += line; text.append(0x0A) }
        for step in 0..<steps {
            for plan in plans { text += plan[step]; text.append(0x0A) }
        }
        guard FileManager.default.createFile(atPath: output, contents: Data(text)) else { throw ValidationError("cannot write \(output)") }
        print("filter-input: \(lines.count) snapshot lines, then \(clients * steps) viewports (\(clients) clients x \(steps)); " +
              "--warm \(lines.count + clients) leaves the snapshot and the first full sets out")
    }
}
