#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into NDJSON lines, whatever the chunking of the reads.
///
/// - `\r\n` and `\n` both end a line; blank (whitespace-only) lines are skipped.
/// - A UTF-8 byte-order mark at the start of a line is dropped (some Windows tools write one).
/// - A line longer than `maxLineLength` is reported once as `.tooLong` and its bytes are discarded
///   as they arrive, so a hostile 2 GiB line costs no more memory than a legal one.
/// Complete lines inside a chunk are handed out without copying; only a line split across reads
/// is assembled in an internal buffer.
public struct LineSplitter: Sendable {
    public let maxLineLength: Int
    private var pending: [UInt8] = []
    private var discarding = false
    private var discardedLength = 0
    private var discardedExcerpt = ""

    public init(maxLineLength: Int = Limits.lineBytes) {
        self.maxLineLength = max(1, maxLineLength)
    }

    /// Feeds the next chunk read from the stream; calls `body` for every event it completes.
    public mutating func append(_ chunk: UnsafeRawBufferPointer, _ body: (LineEvent) -> Void) {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        var start = 0
        while start < chunk.count {
            let remaining = chunk.count - start
            guard let found = memchr(base + start, 0x0A, remaining) else {
                absorbPartial(UnsafeRawBufferPointer(start: base + start, count: remaining))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(found))
            let segment = UnsafeRawBufferPointer(start: base + start, count: end - start)
            completeLine(segment, body)
            start = end + 1
        }
    }

    /// Ends the stream: a final line without a terminator is still delivered.
    public mutating func finish(_ body: (LineEvent) -> Void) {
        if discarding || !pending.isEmpty {
            completeLine(UnsafeRawBufferPointer(start: nil, count: 0), body)
        }
    }

    private mutating func absorbPartial(_ bytes: UnsafeRawBufferPointer) {
        if discarding {
            discardedLength += bytes.count
            return
        }
        if pending.count + bytes.count > maxLineLength {
            startDiscarding(with: bytes)
            return
        }
        pending.append(contentsOf: bytes)
    }

    private mutating func startDiscarding(with bytes: UnsafeRawBufferPointer) {
        var head = pending
        head.append(contentsOf: bytes.prefix(max(0, 80 - head.count)))
        discardedExcerpt = head.withUnsafeBytes { Self.excerpt(UnsafeRawBufferPointer(rebasing: $0.prefix(80))) }
        discardedLength = pending.count + bytes.count
        discarding = true
        pending = []
    }

    private mutating func completeLine(_ tail: UnsafeRawBufferPointer, _ body: (LineEvent) -> Void) {
        if discarding {
            body(.tooLong(length: discardedLength + tail.count, excerpt: discardedExcerpt))
            discarding = false
            discardedLength = 0
            discardedExcerpt = ""
            return
        }
        if pending.isEmpty {
            deliver(tail, body)
            return
        }
        if pending.count + tail.count > maxLineLength {
            startDiscarding(with: tail)
            completeLine(UnsafeRawBufferPointer(start: nil, count: 0), body)
            return
        }
        pending.append(contentsOf: tail)
        pending.withUnsafeBytes { deliver($0, body) }
        pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
    }

    private func deliver(_ raw: UnsafeRawBufferPointer, _ body: (LineEvent) -> Void) {
        var line = raw
        if line.count > maxLineLength {
            body(.tooLong(length: line.count, excerpt: Self.excerpt(UnsafeRawBufferPointer(rebasing: line.prefix(80)))))
            return
        }
        if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
            line = UnsafeRawBufferPointer(rebasing: line.dropFirst(3))
        }
        if let last = line.last, last == 0x0D {
            line = UnsafeRawBufferPointer(rebasing: line.dropLast())
        }
        for byte in line where !(byte == 0x20 || byte == 0x09 || byte == 0x0D) {
            body(.line(line))
            return
        }
    }

    /// A short, printable excerpt of a line for error messages (invalid UTF-8 shown as U+FFFD).
    public static func excerpt(_ bytes: UnsafeRawBufferPointer, limit: Int = 80) -> String {
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes.prefix(limit)), as: UTF8.self)
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { out.unicodeScalars.append("\u{FFFD}") } else { out.unicodeScalars.append(scalar) }
        }
        return bytes.count > limit ? out + "…" : out
    }
}
