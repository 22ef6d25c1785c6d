#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore

/// Reads NDJSON lines from a file descriptor (stdin by default) until end of file.
///
/// Each `read` takes whatever is available (up to 64 KiB); after the lines of one read are
/// handled `drained` is called, which is where a stage flushes its output: one write per burst
/// of input in a fast stream, one per line in a slow one, so latency stays low either way.
public enum LineInput {
    public static func run(fd: Int32 = 0, maxLineLength: Int = 1 << 20,
                           line: (UnsafeRawBufferPointer) -> Void,
                           tooLong: (_ length: Int, _ excerpt: String) -> Void,
                           drained: () -> Void) {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        let capacity = 64 * 1024
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { chunk.deallocate() }
        let handle: (LineEvent) -> Void = { event in
            switch event {
            case .line(let bytes): line(bytes)
            case .tooLong(let length, let excerpt): tooLong(length, excerpt)
            }
        }
        while true {
            let n = read(fd, chunk, capacity)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            splitter.append(UnsafeRawBufferPointer(start: chunk, count: n), handle)
            drained()
        }
        splitter.finish(handle)
        drained()
    }

    /// The usual stage loop: every line goes to `handle`, an over-long line becomes one `error`
    /// message from `stage`, and output is flushed after each burst of input.
    public static func runStage(stage: String, maxLineLength: Int = 1 << 20, output: LineOutput = .standardOutput,
                                handle: (UnsafeRawBufferPointer, inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 64 * 1024)
        run(maxLineLength: maxLineLength,
            line: { handle($0, &writer) },
            tooLong: { length, excerpt in
                ErrorMessage(stage: stage, message: "line of \(length) bytes exceeds the \(maxLineLength)-byte limit; skipped",
                             excerpt: excerpt).write(to: &writer)
            },
            drained: {
                output.write(&writer)
                output.flush()
            })
    }
}
