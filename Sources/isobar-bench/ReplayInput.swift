import ArgumentParser
import Foundation

/// A recorded input of the in-process replays (`filter-replay`, `format-replay`): a file's lines,
/// each without its `\n` (a last line without one is not read).
enum ReplayInput {
    static func lines(ofFile path: String) throws -> [[UInt8]] {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        var lines: [[UInt8]] = []
        var start = data.startIndex
        for i in data.indices where data[i] == 0x0A {
            lines.append(Array(data[start..<i]))
            start = i + 1
        }
        return lines
    }
}
