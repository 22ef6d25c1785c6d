#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser

/// `pass-through`: the stage the bus-hop benchmark runs under `isobar plug`. It copies stdin to
/// stdout chunk by chunk, changing only the last letter of a line's leading `{"type":"hopA"` to
/// `B`, so the plug republishes under a topic (`hopB`) it is not subscribed to. No JSON parsing:
/// the benchmark measures what the plug and the bus cost, not what a stage does.
struct PassThroughCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pass-through", abstract: "Bus-hop stage: stdin to stdout, rewriting {\"type\":\"hopA\" to hopB.")

    static let prefix = Array(#"{"type":"hopA""#.utf8)

    func run() throws {
        let size = 256 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        // Position in the current line, and whether the line still matches `prefix` so far.
        var column = 0
        var matching = true
        let letter = Self.prefix.count - 2
        while true {
            let n = read(0, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            for i in 0..<n {
                let byte = buffer[i]
                if byte == 0x0A {
                    column = 0
                    matching = true
                    continue
                }
                if matching && column < Self.prefix.count {
                    if byte != Self.prefix[column] {
                        matching = false
                    } else if column == letter {
                        buffer[i] = UInt8(ascii: "B")
                    }
                }
                column += 1
            }
            var offset = 0
            while offset < n {
                let written = write(1, buffer + offset, n - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
