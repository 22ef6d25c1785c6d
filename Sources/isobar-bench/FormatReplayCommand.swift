import ArgumentParser
import Foundation
import IsobarCore

/// `format-replay`: the formatter's engine on a recorded input (the filter's `visible` lines, say
/// of a thousand clients panning), in one process with no bus and no pipes, for callgrind: the
/// first `--warm` lines go through `formatReplayWarm` and the rest through `formatReplayCounted`,
/// so the inclusive cost of the latter divided by its line count is the engine's instructions per
/// update, start-up and the first full sets left out. `--output` keeps every answer, to compare
/// two builds' bytes.
struct FormatReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format-replay", abstract: "Feed a file of lines to the formatter's engine in process (for callgrind).")

    @Option(help: "NDJSON input: the lines the formatter receives (e.g. `isobar filter`'s output).")
    var input: String
    @Option(help: "Lines handled before the counted part (the clients' first, full sets).")
    var warm = 0
    @Option(help: "Where to write every answer (default: nowhere).")
    var output: String?

    func run() throws {
        let lines = try ReplayInput.lines(ofFile: input)
        let formatter = FormatEngine()
        var out = JSONWriter(capacity: 1 << 20)
        let split = min(warm, lines.count)
        formatReplayWarm(formatter, lines[..<split], &out)
        let warmBytes = out.bytes.count
        let counted = formatReplayCounted(formatter, lines[split...], &out)
        if let output { try Data(out.bytes).write(to: URL(fileURLWithPath: output)) }
        print("format-replay: \(split) warm lines (\(warmBytes) bytes out), \(counted) counted lines (\(out.bytes.count - warmBytes) bytes out)")
    }
}

/// The lines before the counted ones.
@inline(never)
func formatReplayWarm(_ formatter: FormatEngine, _ lines: ArraySlice<[UInt8]>, _ out: inout JSONWriter) {
    for line in lines { line.withUnsafeBytes { formatter.handle(line: $0, now: 0, into: &out) } }
}

/// The counted lines: callgrind's inclusive cost of this function is the engine's cost of them.
/// (Returns their count, so that it is not merged with `formatReplayWarm`, which has the same body.)
@inline(never)
func formatReplayCounted(_ formatter: FormatEngine, _ lines: ArraySlice<[UInt8]>, _ out: inout JSONWriter) -> Int {
    var count = 0
    for line in lines {
        line.withUnsafeBytes { formatter.handle(line: $0, now: 0, into: &out) }
        count += 1
    }
    return count
}
