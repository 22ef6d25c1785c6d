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
    ///
    /// With `tickEvery` (seconds), `tick` runs at least that often whether or not input arrives
    /// (the read waits in `poll` until the next tick is due), so a stage's timed work does not
    /// depend on other messages coming in.
    ///
    /// With `stop`, the read waits in `poll` on the input and the flag's wake descriptor, and the
    /// loop ends, as at end of input, the moment the flag is raised (a signal stopping the process).
    public static func run(fd: Int32 = 0, maxLineLength: Int = Limits.lineBytes,
                           tickEvery: Double? = nil, tick: () -> Void = {}, stop: StopFlag? = nil,
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
        var lastTick = monotonicSeconds()
        while true {
            if stop != nil || tickEvery != nil {
                var untilTick: Double? = nil
                if let tickEvery {
                    let now = monotonicSeconds()
                    if now - lastTick >= tickEvery {
                        lastTick = now
                        tick()
                        drained()
                    }
                    untilTick = max(0.001, lastTick + tickEvery - monotonicSeconds())
                }
                let wake = StopFlag.block(readable: fd, timeout: untilTick, stop: stop)  // timer: until the next tick is due
                if wake == .stopped { break }
                if wake == .timedOut { continue }
            }
            let n = read(fd, chunk, capacity)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            splitter.append(UnsafeRawBufferPointer(start: chunk, count: n), handle)
            drained()
        }
        splitter.finish(handle)
        drained()
    }

    /// Seconds on a monotonic clock (intervals only).
    public static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// The usual stage loop: every line goes to `handle`, an over-long line becomes one `error`
    /// message from `stage`, and output is flushed after each burst of input (and after each
    /// `tick`, when `tickEvery` is given).
    public static func runStage(stage: String, maxLineLength: Int = Limits.lineBytes, output: LineOutput = .standardOutput,
                                tickEvery: Double? = nil, tick: (inout JSONWriter) -> Void = { _ in },
                                handle: (UnsafeRawBufferPointer, inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 64 * 1024)
        run(maxLineLength: maxLineLength,
            tickEvery: tickEvery, tick: { tick(&writer) },
            line: { handle($0, &writer) },
            tooLong: { length, excerpt in
                ErrorMessage(stage: stage, message: "line of \(length) bytes exceeds the \(maxLineLength)-byte limit; skipped",
                             excerpt: excerpt, code: .lineTooLong).write(to: &writer)
            },
            drained: {
                output.write(&writer)
                output.flush()
            })
    }
}
