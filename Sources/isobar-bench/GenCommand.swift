import ArgumentParser
import Foundation
import IsobarCore

/// `gen`: writes N deterministic station lines (a complete snapshot: seq 0..<N, then the end
/// marker) jittered from the world stations, for the pipe and memory benchmarks.
struct GenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gen", abstract: "Write N generated stations as one complete snapshot (NDJSON) to a file.")

    @Option(help: "Number of stations.")
    var count = 1_000_000
    @Option(help: "Output file.")
    var output = "stations.ndjson"
    @Option(help: "The world station CSV.")
    var world = Paths.defaultWorld
    @Option(help: "Seed for jitter and weather values.")
    var seed: UInt64 = 42

    func run() throws {
        let start = Date()
        let stations = StationGenerator(world: try WorldStations.load(path: world), seed: seed).stations(count: count)
        let (id, bytes) = try StationGenerator.writeSnapshot(stations, to: output)
        let seconds = Date().timeIntervalSince(start)
        var table = Table("gen: \(Format.int(count)) stations", header: ["file", "snapshot", "lines", "bytes", "bytes/line", "seconds"])
        table.add([output, id, Format.int(count + 1), Format.int(bytes), Format.number(Double(bytes) / Double(count + 1), 1),
                   Format.number(seconds, 2)])
        table.print()
    }
}
