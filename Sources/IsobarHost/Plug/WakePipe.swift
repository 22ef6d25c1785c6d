#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe that wakes a thread blocked in `poll`: `signal()` from any thread makes `readFD`
/// readable until the waiting thread calls `drain()`. Lets a loop wait on its socket and on state
/// changes at once, instead of waking on a timer to look (an idle plug then costs no CPU).
///
/// Both ends are non-blocking and close-on-exec (children never inherit them). `@unchecked
/// Sendable`: the descriptors are immutable after init and the calls are thread-safe syscalls.
final class WakePipe: @unchecked Sendable {
    let readFD: Int32
    private let writeFD: Int32

    /// Nil when the process is out of descriptors; callers then fall back to polling on a timer.
    init?() {
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
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe, after a wake-up, before looking at the state again.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }
}
