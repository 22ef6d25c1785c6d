#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe: the wake descriptor of a thread that owns libzmq sockets. `signal()` from any thread
/// or task makes `readFD` readable until the owner calls `drain()`, so the owner waits in `zmq_poll`
/// on its sockets and this descriptor with no timeout: a stop or any other change of its state wakes
/// it at once, and an idle owner costs no CPU. (Swift's Glibc module has no `eventfd`; a pipe is the
/// portable equivalent.)
///
/// `wait(timeout:)` blocks until signalled, for a plain thread that waits for an owner to finish (a
/// blocking read on a descriptor, which the signal ends): `BusClient.close` (no timeout) and
/// `ZAPHandler.waitUntilStopped` (a stop's grace: a timer).
///
/// Both ends are non-blocking and close-on-exec (children never inherit them). `@unchecked
/// Sendable`: the descriptors are immutable after init and the calls are thread-safe syscalls.
public final class WakePipe: @unchecked Sendable {
    public let readFD: Int32
    private let writeFD: Int32

    /// Nil when the process is out of descriptors.
    public init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {  // pipe2 is not in Swift's Glibc module; the same flags by fcntl
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Makes `readFD` readable (a full pipe is already readable: EAGAIN is fine).
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe, after a wake-up, before looking at the state again.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }

    /// Blocks the calling thread until `signal()` was called (now or before), or `timeout` passed
    /// (nil: no limit); returns whether it was signalled. Leaves the signal in place, so every later
    /// wait returns at once too (a one-way latch for threads).
    @discardableResult
    public func wait(timeout: Duration? = nil) -> Bool {
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            var item = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            var milliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { milliseconds = 0 } else {
                    let (seconds, attoseconds) = left.components
                    milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
                }
            }
            // Without a deadline it waits for the signal only (-1), never to look at anything.
            // timer: a deadline is the caller's purpose (ZAPHandler.waitUntilStopped, a stop's grace).
            let ready = poll(&item, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { return false }
        }
    }
}
