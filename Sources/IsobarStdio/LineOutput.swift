#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore

/// Protocol output on a file descriptor (stdout by default), safe to use from several threads.
///
/// Bytes are buffered and written with write(2) on `flush()`, which callers do once per batch of
/// input (a stage after each read, a fetcher after each snapshot) so a downstream pipe sees every
/// message at once without paying a syscall per line. A closed pipe (EPIPE) is reported, never a
/// crash: SIGPIPE must be ignored by the process (`LineOutput.ignoreSIGPIPE()`).
public final class LineOutput: @unchecked Sendable {
    // @unchecked: `buffer` and `closed` are only touched with `lock` held.
    private let fd: Int32
    private let lock = NSLockLike()
    private var buffer: [UInt8] = []
    private var closed = false

    public static let standardOutput = LineOutput(fd: 1)
    /// Shared by every log handler and `up`'s copies of its children's lines, so lines never interleave.
    public static let standardError = LineOutput(fd: 2)

    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(64 * 1024)
    }

    public static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Appends complete lines (each ending in `\n`); flushes early past 1 MiB.
    public func write<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        lock.withLock {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { flushLocked() }
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
        lock.withLock {
            flushLocked()
            return !closed
        }
    }

    public var isClosed: Bool { lock.withLock { closed } }

    private func flushLocked() {
        guard !buffer.isEmpty else { return }
        if closed { buffer.removeAll(keepingCapacity: true); return }
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                closed = true
                return
            }
        }
        buffer.removeAll(keepingCapacity: buffer.capacity <= 4 << 20)
    }
}

/// A minimal mutex (pthread) so this module needs no Foundation for locking.
public final class NSLockLike: @unchecked Sendable {
    // @unchecked: the mutex itself provides the synchronisation.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
