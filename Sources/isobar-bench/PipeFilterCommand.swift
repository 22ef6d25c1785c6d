import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// `pipe-filter`: `isobar filter --viewport ... --limit N` over a generated snapshot file, against
/// `jq -c 'select(...)'` doing the same bounding-box selection on the same file. Both read the
/// file on stdin and write to a file; the selections are compared id by id.
struct PipeFilterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipe-filter", abstract: "isobar filter vs jq: the same bounding box over a generated snapshot, lines/s.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Snapshot file (written by `gen` when missing).")
    var file = "stations-1m.ndjson"
    @Option(help: "Stations to generate when the file is missing.")
    var count = 1_000_000
    @Option(help: "Viewport LAT,LON,DLAT,DLON (no antimeridian crossing: jq's box is a plain one).")
    var viewport = "40.924,-108.0955,25,20"
    @Option(help: "The jq binary.")
    var jq = "jq"

    func run() async throws {
        if !FileManager.default.fileExists(atPath: file) {
            let stations = StationGenerator(world: try WorldStations.load(path: common.world), seed: common.seed).stations(count: count)
            _ = try StationGenerator.writeSnapshot(stations, to: file)
        }
        let parts = viewport.split(separator: ",").compactMap { Double($0) }
        guard parts.count == 4 else { throw ValidationError("--viewport needs LAT,LON,DLAT,DLON") }
        let (lat, lon, dlat, dlon) = (parts[0], parts[1], parts[2], parts[3])
        let lines = try Self.countLines(file)
        let isobar = Paths.isobar(common.isobar)
        let scratch = Paths.scratch("pipe")
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        // The filter's visibility rule in jq: both bounds inclusive, computed with the same doubles.
        let select = "select(.type==\"station\" and .latitude >= ([-90, \(lat) - \(dlat)/2] | max) and .latitude <= ([90, \(lat) + \(dlat)/2] | min)"
            + " and .longitude >= (\(lon) - \(dlon)/2) and .longitude <= (\(lon) + \(dlon)/2))"
        let filterArgs = ["filter", "--viewport", viewport, "--limit", "10000000"]
        let jqArgs = ["-c", select]
        let filterOut = scratch + "/filter.ndjson"
        let jqOut = scratch + "/jq.ndjson"

        var filterSeconds: [Double] = []
        var jqSeconds: [Double] = []
        for run in 0..<common.runs {
            // Alternate the order so neither always runs on a warmer page cache.
            let order = run % 2 == 0 ? [true, false] : [false, true]
            for isFilter in order {
                if isFilter {
                    filterSeconds.append(try await Self.time(isobar, filterArgs, input: file, output: filterOut))
                } else {
                    jqSeconds.append(try await Self.time(try Self.which(jq), jqArgs, input: file, output: jqOut))
                }
            }
        }
        let filterIDs = try Self.filterSelection(filterOut)
        let jqIDs = try Self.jqSelection(jqOut)
        let identical = filterIDs == jqIDs

        let f = Summary(filterSeconds), j = Summary(jqSeconds)
        let ratios = Summary(zip(jqSeconds, filterSeconds).map { $0 / $1 })
        var table = Table("pipe-filter: \(Format.int(lines)) lines, viewport \(viewport), \(common.runs) runs",
                          header: ["program", "seconds median (min–max)", "lines/s median", "lines/s (min–max)", "selected"])
        table.add(["isobar filter", f.text(3), Format.number(Double(lines) / f.median),
                   "\(Format.number(Double(lines) / f.max))–\(Format.number(Double(lines) / f.min))", Format.int(filterIDs.count)])
        table.add(["jq -c select", j.text(3), Format.number(Double(lines) / j.median),
                   "\(Format.number(Double(lines) / j.max))–\(Format.number(Double(lines) / j.min))", Format.int(jqIDs.count)])
        table.add(["ratio filter/jq (per run)", ratios.text(2), "", "", identical ? "identical" : "DIFFERENT"])
        table.note("isobar: `\(isobar) \(filterArgs.joined(separator: " ")) < \(file) > out`")
        table.note("jq: `jq -c '\(select)' < \(file) > out`")
        table.note("target: filter >= 2x jq lines/s with identical selections: \(ratios.median >= 2 && identical ? "MET" : "NOT MET")")
        table.print()
        if !identical {
            throw ValidationError("selections differ: filter \(filterIDs.count) ids, jq \(jqIDs.count) ids, \(filterIDs.symmetricDifference(jqIDs).count) differ")
        }
    }

    static func which(_ name: String) throws -> String {
        if name.contains("/") { return name }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw ValidationError("\(name) not found on PATH")
    }

    /// Runs one program with `input` as stdin and `output` as stdout (files, never through this
    /// process); returns wall seconds.
    static func time(_ executable: String, _ arguments: [String], input: String, output: String) async throws -> Double {
        guard FileManager.default.isReadableFile(atPath: input) else { throw ValidationError("cannot read \(input)") }
        let start = Date()
        let process = try await Children.start(executable, arguments, stdin: .file(input), stdout: .file(output))
        let exit = await process.process.waitForExit()
        let seconds = Date().timeIntervalSince(start)
        await Children.stop(process)
        guard exit == .exited(code: 0) else { throw ValidationError("\(executable) \(exit.map { "\($0)" } ?? "did not end")") }
        return seconds
    }

    static func countLines(_ path: String) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ValidationError("cannot read \(path)") }
        defer { try? handle.close() }
        var count = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            count += chunk.withUnsafeBytes { $0.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 } }
        }
        return count
    }

    /// Station ids of every `visible` upsert in the filter's output.
    static func filterSelection(_ path: String) throws -> Set<String> {
        var ids = Set<String>()
        try forEachObject(path) { object in
            guard (try? object.requireString("type")) == "visible", let visible = try? Visible(from: object) else { return }
            for item in visible.upsert { ids.insert(item.id) }
        }
        return ids
    }

    /// Station ids of jq's output lines.
    static func jqSelection(_ path: String) throws -> Set<String> {
        var ids = Set<String>()
        try forEachObject(path) { object in
            if let id = try? object.requireString("id") { ids.insert(id) }
        }
        return ids
    }

    static func forEachObject(_ path: String, _ body: (JSONObject) -> Void) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        var splitter = LineSplitter(maxLineLength: 1 << 30)
        data.withUnsafeBytes { buffer in
            splitter.append(buffer) { event in
                if case .line(let line) = event, let object = try? JSONObject(parsing: line) { body(object) }
            }
        }
        splitter.finish { event in
            if case .line(let line) = event, let object = try? JSONObject(parsing: line) { body(object) }
        }
    }
}
