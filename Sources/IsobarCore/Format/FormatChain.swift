/// The formatter chained behind the filter in one process (`isobar filter --chain-format`): what
/// leaves the process is what the filter and the formatter would put on the bus together, minus
/// the messages between them.
///
/// The filter writes client sets as `annotations` itself (`FilterOptions.chainedFormat`); every
/// other line it writes that the formatter subscribes to (`selection`, `closest`, `matches`,
/// `pinned`, `particulars`: one per request, not per pan) is handed to the formatter here, line by
/// line, and every line of another type is kept as is.
///
/// A feed change's answers to many clients need not be held whole: the filter hands its writer out
/// every `FilterEngine.spillBytes` (``spill(_:_:)``), which formats what it wrote so far and writes
/// it out, so the output held stays about 1 MiB plus one client's answer (docs/security.md).
/// A class: the spill runs while ``pass(into:_:)`` is under way and moves where it resumes.
public final class FormatChain {
    public let format: FormatEngine
    /// The first stage's lines for the current input while some are being formatted (reused).
    private var scratch = JSONWriter(capacity: 64 * 1024)
    /// Where the lines of the current pass not yet formatted start in its writer.
    private var unformatted = 0

    public init(format: FormatEngine) {
        self.format = format
    }

    /// The filter's options with the formatter chained behind it.
    public func chained(_ options: FilterOptions) -> FilterOptions {
        var options = options
        options.chainedFormat = format.defaults
        return options
    }

    /// Runs `produce` (the first stage's handling of one input or tick), which appends whole lines
    /// to `out`, then formats those lines the formatter takes, in place and in order.
    public func pass(into out: inout JSONWriter, _ produce: (inout JSONWriter) -> Void) {
        unformatted = out.bytes.count
        produce(&out)
        formatRest(of: &out)
    }

    /// For the first stage's spill during ``pass(into:_:)`` (between whole lines): formats what it
    /// wrote so far, hands the writer to `write` (which sends and empties it), and resumes after.
    public func spill(_ out: inout JSONWriter, _ write: (inout JSONWriter) -> Void) {
        formatRest(of: &out)
        write(&out)
        unformatted = out.bytes.count
    }

    /// Formats the lines from `unformatted` on that the formatter takes, in place and in order.
    private func formatRest(of out: inout JSONWriter) {
        let mark = min(unformatted, out.bytes.count)
        unformatted = out.bytes.count
        let needed = out.bytes.withUnsafeBytes { all in
            Self.lines(UnsafeRawBufferPointer(rebasing: all[mark...])).contains { Self.formats($0) }
        }
        guard needed else { return }
        scratch.removeAll()
        scratch.raw(out.bytes[mark...])
        out.truncate(to: mark)
        let format = format
        scratch.bytes.withUnsafeBytes { all in
            for line in Self.lines(all) {
                if Self.formats(line) {
                    format.handle(line: line, into: &out)
                } else {
                    out.raw(line)
                    out.newline()
                }
            }
        }
        unformatted = out.bytes.count
    }

    /// The lines of `bytes` (each without its newline; a last line without one included).
    static func lines(_ bytes: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer] {
        guard let base = bytes.baseAddress else { return [] }
        var lines: [UnsafeRawBufferPointer] = []
        var start = 0
        while start < bytes.count {
            let end = memchr(base + start, 0x0A, bytes.count - start).map { UnsafeRawPointer($0) - base } ?? bytes.count
            lines.append(UnsafeRawBufferPointer(start: base + start, count: end - start))
            start = end + 1
        }
        return lines
    }

    /// Whether the formatter takes the line: its `type` (written first by the filter) is one the
    /// formatter subscribes to.
    static func formats(_ line: UnsafeRawBufferPointer) -> Bool {
        typePrefixes.contains { line.count > $0.count && line.hasBytes($0) }
    }

    private static let typePrefixes = FormatEngine.subscriptions.map { Array(#"{"type":"\#($0)""#.utf8) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
