import ArgumentParser
import Foundation

/// The recorded input of the in-process replays (`filter-replay`, `format-replay`): which file,
/// how many of its first lines warm the engine uncounted, and where the answers go.
struct ReplayInput: ParsableArguments {
    @Option(help: "NDJSON input: the lines the engine receives (`filter-replay`: e.g. `isobar-bench filter-input`'s file; `format-replay`: e.g. `isobar filter`'s output).")
    var input: String
    @Option(help: "Lines handled before the counted part (the snapshot load and the clients' first, full sets).")
    var warm = 0
    @Option(help: "Where to write every answer, to compare two builds' bytes (default: nowhere).")
    var output: String?

    /// The input file's lines, each without its `\n` (a last line without one is not read), split
    /// into the warm lines and the counted ones.
    func lines() throws -> (warm: ArraySlice<[UInt8]>, counted: ArraySlice<[UInt8]>) {
        guard let data = FileManager.default.contents(atPath: input) else { throw ValidationError("cannot read \(input)") }
        // Through a buffer pointer: `Data`'s subscript checked exclusivity on every byte, most of
        // a replay's instructions under callgrind (outside the counted part, but slow to run).
        var lines: [[UInt8]] = []
        data.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
            var start = 0
            for i in all.indices where all[i] == 0x0A {
                lines.append(Array(all[start..<i]))
                start = i + 1
            }
        }
        let split = min(warm, lines.count)
        return (lines[..<split], lines[split...])
    }

    /// Writes the answers kept to `--output`, when given.
    func write(_ bytes: [UInt8]) throws {
        if let output { try Data(bytes).write(to: URL(fileURLWithPath: output)) }
    }
}
