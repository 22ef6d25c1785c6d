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

    @OptionGroup var replay: ReplayInput

    func run() throws {
        let (warmLines, countedLines) = try replay.lines()
        let formatter = FormatEngine()
        var out = JSONWriter(capacity: 1 << 20)
        formatReplayWarm(formatter, warmLines, &out)
        let warmBytes = out.bytes.count
        let counted = formatReplayCounted(formatter, countedLines, &out)
        try replay.write(out.bytes)
        print("format-replay: \(warmLines.count) warm lines (\(warmBytes) bytes out), \(counted) counted lines (\(out.bytes.count - warmBytes) bytes out)")
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
