import ArgumentParser
import Foundation
import IsobarCore

/// `filter-replay`: the filter's engine on a recorded input (a snapshot and clients' viewports,
/// say `filter-input`'s), in one process with no bus and no pipes, for callgrind: the first
/// `--warm` lines (the snapshot load, the clients' first full sets) go through `filterReplayWarm`
/// and the rest through `filterReplayCounted`, so the inclusive cost of the latter divided by its
/// line count is the engine's instructions per update. The clock is fixed (every line at the same
/// engine time, the wall clock given or read once), so one binary does the same work on every
/// run. `--output` keeps every answer, to compare two builds' bytes.
struct FilterReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter-replay", abstract: "Feed a file of lines to the filter's engine in process (for callgrind).")

    @OptionGroup var replay: ReplayInput
    @Option(help: "Mark stations stale after this many minutes (as `isobar filter --stale-after`; 0: never).")
    var staleAfter: Double = 60
    @Option(help: "The wall clock, Unix seconds, for staleness and the snapshot's plausibility (default: now, read once).")
    var wallClock: Double?

    func run() throws {
        guard staleAfter.isFinite, staleAfter >= 0 else { throw ValidationError("--stale-after must be a non-negative number of minutes") }
        let (warmLines, countedLines) = try replay.lines()
        var options = FilterOptions()
        options.maxClients = .max  // every client of the recording held, none evicted
        options.staleAfter = staleAfter > 0 ? staleAfter * 60 : nil
        let wall = wallClock ?? WallClock.now()
        let engine = FilterEngine(options: options, wallClock: { wall })
        var out = JSONWriter(capacity: 1 << 20)
        let keep = replay.output != nil
        let warmBytes = filterReplayWarm(engine, warmLines, keep: keep, &out)
        let (counted, countedBytes) = filterReplayCounted(engine, countedLines, keep: keep, &out)
        try replay.write(out.bytes)
        print("filter-replay: \(warmLines.count) warm lines (\(warmBytes) bytes out), \(counted) counted lines (\(countedBytes) bytes out)")
    }
}

/// The engine time of every replayed line (only differences matter to the engine).
private let replayNow = 1_000.0

/// The lines before the counted ones; returns the bytes they were answered with. Without `keep`
/// the answers are dropped line by line (no growing buffer copied in the count).
@inline(never)
func filterReplayWarm(_ engine: FilterEngine, _ lines: ArraySlice<[UInt8]>, keep: Bool, _ out: inout JSONWriter) -> Int {
    var bytes = 0
    for line in lines {
        let before = out.bytes.count
        line.withUnsafeBytes { engine.handle(line: $0, now: replayNow, into: &out) }
        bytes += out.bytes.count - before
        if !keep { out.bytes.removeAll(keepingCapacity: true) }
    }
    return bytes
}

/// The counted lines: callgrind's inclusive cost of this function is the engine's cost of them.
/// Returns their count and the bytes they were answered with.
@inline(never)
func filterReplayCounted(_ engine: FilterEngine, _ lines: ArraySlice<[UInt8]>, keep: Bool, _ out: inout JSONWriter) -> (lines: Int, bytes: Int) {
    var count = 0, bytes = 0
    for line in lines {
        let before = out.bytes.count
        line.withUnsafeBytes { engine.handle(line: $0, now: replayNow, into: &out) }
        bytes += out.bytes.count - before
        if !keep { out.bytes.removeAll(keepingCapacity: true) }
        count += 1
    }
    return (count, bytes)
}
