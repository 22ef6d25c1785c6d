#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore
import Synchronization

/// Protocol output on a file descriptor (stdout by default), safe to use from several threads.
///
/// Bytes are buffered and written with write(2) on `flush()`, which callers do once per batch of
/// input (a stage after each read, a fetcher after each snapshot) so a downstream pipe sees every
/// message at once without paying a syscall per line. A closed pipe (EPIPE) is reported, never a
/// crash: SIGPIPE must be ignored by the process (`LineOutput.ignoreSIGPIPE()`).
public final class LineOutput: Sendable {
    /// What the lock guards: the bytes not yet written, and whether the reader has gone away.
    private struct Pending {
        var buffer: [UInt8] = []
        var closed = false
    }

    private let fd: Int32
    private let pending: Mutex<Pending>

    public static let standardOutput = LineOutput(fd: 1)
    /// Shared by every log handler and `up`'s copies of its children's lines, so lines never interleave.
    public static let standardError = LineOutput(fd: 2)

    public init(fd: Int32) {
        self.fd = fd
        var initial = Pending()
        initial.buffer.reserveCapacity(64 * 1024)
        pending = Mutex(initial)
    }

    public static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Appends complete lines (each ending in `\n`); flushes early past 1 MiB.
    public func write<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        pending.withLock { pending in
            pending.buffer.append(contentsOf: bytes)
            if pending.buffer.count >= 1 << 20 { Self.flush(&pending, to: fd) }
        }
    }

    public func write(_ writer: inout JSONWriter) {
        guard !writer.bytes.isEmpty else { return }
        write(writer.bytes)
        writer.removeAll()
    }

    /// Writes everything buffered. Returns false once the reader has gone away.
    @discardableResult
    public func flush() -> Bool {
        pending.withLock { pending in
            Self.flush(&pending, to: fd)
            return !pending.closed
        }
    }

    public var isClosed: Bool { pending.withLock { $0.closed } }

    /// Writes `pending`'s bytes to `fd` (the caller holds the lock); a failed write marks it closed.
    private static func flush(_ pending: inout Pending, to fd: Int32) {
        guard !pending.buffer.isEmpty else { return }
        if pending.closed { pending.buffer.removeAll(keepingCapacity: true); return }
        var offset = 0
        var closed = false
        pending.buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                closed = true
                return
            }
        }
        if closed { pending.closed = true }
        pending.buffer.removeAll(keepingCapacity: pending.buffer.capacity <= 4 << 20)
    }
}
