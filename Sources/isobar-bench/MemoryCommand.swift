import ArgumentParser
import Foundation
import IsobarHost

/// `memory`: peak resident memory (VmHWM) of `isobar filter` holding a generated snapshot: it is
/// fed the whole file on stdin, then one viewport; once its answer is out, /proc/PID/status is read.
struct MemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory", abstract: "Peak RSS of `isobar filter` holding a generated snapshot (1M stations).")

    @OptionGroup var common: CommonOptions
    @Option(help: "Snapshot file (written by `gen` when missing).")
    var file = "stations-1m.ndjson"
    @Option(help: "Stations to generate when the file is missing.")
    var count = 1_000_000

    static let marker = #""client":"mem""#
    static let viewport = #"{"type":"viewport","client":"mem","center":{"latitude":45,"longitude":-100},"span":{"latitudeDelta":50,"longitudeDelta":70}}"#

    func run() async throws {
        if !FileManager.default.fileExists(atPath: file) {
            let stations = StationGenerator(world: try WorldStations.load(path: common.world), seed: common.seed).stations(count: count)
            _ = try StationGenerator.writeSnapshot(stations, to: file)
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let lines = data.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        var peaks: [Double] = [], resident: [Double] = [], seconds: [Double] = []
        for _ in 0..<common.runs {
            let start = Clock.now()
            // Answered once a line for the client "mem" comes out (the filter's answer).
            let answered = Latch()
            let child = try await Children.start(Paths.isobar(common.isobar), ["filter"], stdin: .pipe) { stream, event in
                if stream == .standardOutput, case .line(let line) = event,
                   String(decoding: line, as: UTF8.self).contains(Self.marker) {
                    answered.raise()
                }
            }
            guard let stdin = child.process.stdin else { throw ValidationError("memory: no stdin") }
            try data.withUnsafeBytes { try stdin.writeAll($0) }
            try Array((Self.viewport + "\n").utf8).withUnsafeBytes { try stdin.writeAll($0) }
            // The deadline only guards against a filter that never answers.
            guard await !answered.sleep(for: .seconds(300)) else {
                await Children.stop(child)
                throw ValidationError("memory: the filter did not answer the viewport")
            }
            seconds.append(Clock.now() - start)
            let pid = child.processIdentifier
            peaks.append(Double(ProcStatus.bytes("VmHWM", pid: pid) ?? 0))
            resident.append(Double(ProcStatus.bytes("VmRSS", pid: pid) ?? 0))
            // End of input: it exits on its own.
            stdin.close()
            _ = await child.process.waitForExit()
            await Children.stop(child)
        }
        let peak = Summary(peaks)
        var table = Table("memory: isobar filter holding \(Format.int(lines - 1)) stations, \(common.runs) runs",
                          header: ["measure", "MB median (min–max)"])
        table.add(["VmHWM (peak RSS)", peak.text(1, scale: 1 / 1_048_576)])
        table.add(["VmRSS after the answer", Summary(resident).text(1, scale: 1 / 1_048_576)])
        table.add(["load + answer, seconds", Summary(seconds).text(2)])
        table.note("command: `isobar filter < \(file)` then one continent viewport on the same stdin; /proc/PID/status read after its answer")
        table.note("target: peak <= 300 MB: \(peak.median <= 300 * 1_048_576 ? "MET" : "NOT MET")")
        table.print()
    }
}
