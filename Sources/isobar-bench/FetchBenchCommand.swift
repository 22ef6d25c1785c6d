import ArgumentParser
import Foundation
import IsobarCore
import Synchronization

/// `fetch`: `isobar fetch --once` of a generated onX feed file of a million stations (the onX
/// shape, indented like the real feed), both days and one day, against Python's `json.load` of
/// the same file: wall seconds and peak RSS of each, measured by GNU time (`/usr/bin/time`).
struct FetchBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "isobar fetch of a 1M-station onX feed vs Python's json.load: seconds and peak RSS.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Stations in the generated feed.")
    var count = 1_000_000
    @Option(help: "The feed file (generated when missing).")
    var feed = "onx-1m.json"
    @Option(help: "The Python interpreter for json.load.")
    var python = "/usr/bin/python3"
    @Option(help: "Instead: the bulk METAR cache file (gzip CSV) of this many generated stations, against Python's csv + gzip.")
    var metar: Int?

    func run() async throws {
        if let metar {
            guard metar > 0 else { throw ValidationError("--metar must be a positive number of stations") }
            try await runMetar(count: metar)
            return
        }
        if !FileManager.default.fileExists(atPath: feed) {
            let stations = StationGenerator(world: try WorldStations.load(path: common.world), seed: common.seed).stations(count: count)
            try Self.writeOnX(stations, to: feed)
        }
        let bytes = (try FileManager.default.attributesOfItem(atPath: feed)[.size] as? NSNumber)?.intValue ?? 0
        let small = Paths.scratch("fetch") + "/small.json"
        try Data("[{\"id\":\"ONE\",\"name\":\"one\",\"latitude\":1,\"longitude\":2}]".utf8).write(to: URL(fileURLWithPath: small))
        let isobar = Paths.isobar(common.isobar)
        let limit = String(bytes + 1_048_576)
        var both: [(Double, Double)] = [], one: [(Double, Double)] = [], load: [(Double, Double)] = []
        for _ in 0..<common.runs {
            both.append(try await Self.timed([isobar, "fetch", "--today", feed, "--tomorrow", feed, "--once", "--max-body-bytes", limit]))
            one.append(try await Self.timed([isobar, "fetch", "--today", feed, "--tomorrow", small, "--once", "--max-body-bytes", limit]))
            load.append(try await Self.timed([python, "-c", "import json, sys; json.load(open(sys.argv[1]))", feed]))
        }
        var table = Table("fetch: an onX feed of \(Format.int(count)) stations (\(Format.number(Double(bytes) / 1_048_576)) MB), \(common.runs) runs",
                          header: ["program", "seconds median (min–max)", "peak RSS MB median (min–max)"])
        for (name, samples) in [("isobar fetch, both days (the file twice)", both), ("isobar fetch, one day", one),
                                ("python3 json.load of the file", load)] {
            table.add([name, Summary(samples.map(\.0)).text(2), Summary(samples.map(\.1)).text(1, scale: 1 / 1_024)])
        }
        let ratio = Summary(zip(one, load).map { $0.0 / $1.0 })
        table.add(["ratio one day / json.load (per run)", ratio.text(2), ""])
        table.note("command: `isobar fetch --today FEED --tomorrow FEED|SMALL --once > /dev/null`; `python3 -c 'json.load(open(FEED))'`; GNU time's %e and %M")
        let peak = Summary(both.map(\.1)).median / 1_024
        table.note("target: one day no slower than json.load: \(ratio.median <= 1 ? "MET" : "NOT MET"); peak <= 400 MB (both days): \(peak <= 400 ? "MET" : "NOT MET")")
        table.print()
    }

    /// Runs `command` under GNU time with stdout to /dev/null: (wall seconds, peak RSS in KB).
    /// Started and awaited as every benchmark's process is (`Children`, isobar's `OneShotProcess`).
    static func timed(_ command: [String]) async throws -> (Double, Double) {
        let timeLine = Mutex<String?>(nil)
        let process = try await Children.start("/usr/bin/time", ["-f", "isobar-bench-time %e %M"] + command,
                                               stdout: .file("/dev/null")) { stream, event in
            guard stream == .standardError, case .line(let bytes) = event else { return }
            let line = String(decoding: bytes, as: UTF8.self)
            if line.hasPrefix("isobar-bench-time ") { timeLine.withLock { $0 = line } }
        }
        let exit = await process.process.waitForExit()
        await Children.stop(process)
        guard exit == .exited(code: 0) else {
            throw ValidationError("\(command.joined(separator: " ")) ended: \(exit.map { "\($0)" } ?? "unknown")")
        }
        let fields = timeLine.withLock { $0 }?.split(separator: " ") ?? []
        guard fields.count == 3, let seconds = Double(fields[1]), let kilobytes = Double(fields[2]) else {
            throw ValidationError("no GNU time line from \(command.first ?? "?")")
        }
        return (seconds, kilobytes)
    }

    /// The onX shape (`wind_speed`, `wind_direction`, `chance_of_precipitation`), one key per line
    /// with four-space indents like the real feed, written in pieces.
    static func writeOnX(_ stations: [Station], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ValidationError("cannot create \(path)")
        }
        defer { try? handle.close() }
        var text = "[\n"
        for (n, station) in stations.enumerated() {
            var record = JSONWriter()
            record.string(station.id)
            let id = String(decoding: record.bytes, as: UTF8.self)
            record = JSONWriter()
            record.string(station.name)
            let name = String(decoding: record.bytes, as: UTF8.self)
            func number(_ value: Double?) -> String {
                var writer = JSONWriter()
                writer.number(value)
                return String(decoding: writer.bytes, as: UTF8.self)
            }
            text += "    {\n        \"id\": \(id),\n        \"name\": \(name),\n"
            text += "        \"longitude\": \(number(station.coordinate.longitude)),\n        \"latitude\": \(number(station.coordinate.latitude)),\n"
            text += "        \"temperature\": \(number(station.temperature)),\n        \"wind_speed\": \(number(station.windSpeed)),\n"
            text += "        \"wind_direction\": \(number(station.windDirection)),\n        \"chance_of_precipitation\": \(number(station.precipitation))\n"
            text += n == stations.count - 1 ? "    }\n]\n" : "    },\n"
            if text.utf8.count >= 1 << 20 {
                handle.write(Data(text.utf8))
                text = ""
            }
        }
        handle.write(Data(text.utf8))
    }
}
