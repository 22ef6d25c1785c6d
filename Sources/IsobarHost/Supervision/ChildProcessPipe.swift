#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The parent's end of one of a child's stdio pipes: a file descriptor closed exactly once.
///
/// Ownership: one thread does the I/O on a pipe end and is the one that closes it (the stdin writer,
/// the stdout reader, the stderr reader); `deinit` closes it as a backstop. `close()` is idempotent
/// and guarded by a lock so a late second close can never hit a reused descriptor number.
///
public final class ChildProcessPipe: Sendable {
    /// The descriptor, -1 once closed; only read or replaced under the lock.
    private let fd: Mutex<Int32>

    /// Takes ownership of `fd` (closed by `close()` or deinit).
    public init(fd: Int32) {
        self.fd = Mutex(fd)
    }

    deinit {
        let fd = self.fd.withLock { $0 }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { fd.withLock { $0 < 0 } }

    /// Closes the descriptor (for stdin: the child sees end of input). Idempotent.
    public func close() {
        let old = fd.withLock { fd in
            defer { fd = -1 }
            return fd
        }
        if old >= 0 { _ = Glibc.close(old) }
    }

    private var current: Int32 { fd.withLock { $0 } }

    /// Writes all of `bytes`, blocking while the pipe is full (the child is not reading).
    /// Throws `EPIPE` once the child has exited or closed its stdin, `EBADF` after `close()`.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(ChildProcessPipeError) {
        var written = 0
        try writeAll(bytes, written: &written)
    }

    /// `writeAll`, counting in `written` the bytes that went into the pipe, also when it throws
    /// (so a caller can keep the rest for another reader).
    public func writeAll(_ bytes: UnsafeRawBufferPointer, written: inout Int) throws(ChildProcessPipeError) {
        written = 0
        let fd = current
        guard fd >= 0 else { throw ChildProcessPipeError(operation: "write", errno: EBADF) }
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let n = Glibc.write(fd, base, remaining)
            if n < 0 {
                if errno == EINTR { continue }
                throw ChildProcessPipeError(operation: "write", errno: errno)
            }
            remaining -= n
            base += n
            written += n
        }
    }

    /// Reads what is available (at most `buffer.count` bytes), blocking until there is something.
    /// Returns 0 at end of file (the child closed its end or exited, and no grandchild holds it open).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ChildProcessPipeError) -> Int {
        let fd = current
        guard fd >= 0 else { throw ChildProcessPipeError(operation: "read", errno: EBADF) }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ChildProcessPipeError(operation: "read", errno: errno)
        }
    }
}

/// A read or write on a child's pipe failed.
public struct ChildProcessPipeError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let errno: Int32

    /// The child is gone (or closed its stdin): what was being written is lost.
    public var isBrokenPipe: Bool { errno == EPIPE }

    public var description: String {
        "\(operation) on child pipe failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
