#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A one-way "stop now" signal shared between a service's shutdown handler and a loop that blocks
/// on input (attach's stdin, the terminal map's keys, a bus stage's poll): the flag says whether a
/// stop was asked for, and ``wakeDescriptor`` becomes readable at the same moment, so a loop that
/// waits in `poll(2)` on its input and this descriptor wakes at once, with no timeout to look at
/// the flag.
public final class StopFlag: Sendable {
    private let raised = Mutex(false)
    /// The pipe's ends (`-1` when the process had no descriptor left for it: then a blocked loop
    /// notices the stop only at its next input or end of input).
    private let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {  // pipe2 is not in Swift's Glibc module: close-on-exec and non-blocking by fcntl
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Asks the loop to stop: raises the flag, then makes ``wakeDescriptor`` readable (for good:
    /// the byte is never read, so every later wait on it returns at once too). Never blocks.
    public func raise() {
        let first = raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
        guard first, writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    public var isRaised: Bool { raised.withLock { $0 } }

    /// Readable once the flag is raised (`-1` if no pipe could be made): put it in a `poll(2)` set
    /// beside the input to wake at a stop.
    public var wakeDescriptor: Int32 { readEnd }

    /// What ended a ``wait(readable:timeout:)``.
    public enum Wake: Sendable, Equatable {
        /// The descriptor is readable (or at end of input, or failed: a `read` says which).
        case readable
        /// The flag was raised.
        case stopped
        /// The timeout passed first.
        case timedOut
    }

    /// Waits until `fd` is readable or the flag is raised, whichever is first, and with `timeout`
    /// (seconds) no longer than that: one `poll(2)` on `fd` and ``wakeDescriptor``, so a stop
    /// ends the wait at once. A stop wins over input that is ready at the same moment.
    public func wait(readable fd: Int32? = nil, timeout: Double? = nil) -> Wake {
        Self.block(readable: fd, timeout: timeout, stop: self)
    }

    /// ``wait(readable:timeout:)`` with the stop optional (none: only `fd` and the timeout end it).
    static func block(readable fd: Int32?, timeout: Double?, stop: StopFlag?) -> Wake {
        let end = timeout.map { monotonicSeconds() + $0 }
        var items = [pollfd(fd: stop?.readEnd ?? -1, events: Int16(POLLIN), revents: 0),
                     pollfd(fd: fd ?? -1, events: Int16(POLLIN), revents: 0)]
        while stop?.isRaised != true {
            let milliseconds = end.map { Int32(clamping: Int(max(0, (($0 - monotonicSeconds()) * 1000).rounded(.up)))) } ?? -1
            items[0].revents = 0
            items[1].revents = 0
            // timer: the caller's deadline (a tick, a drain window, an escape sequence's) is the purpose; a stop ends it at once.
            let ready = poll(&items, 2, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { return .timedOut }
            if ready > 0 && items[0].revents != 0 { break }
            return .readable  // a failed poll too: the caller's read reports the error
        }
        return .stopped
    }

    static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
