#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Turns SIGTERM/SIGINT into an ordinary callback on a dedicated thread, so shutdown code can take locks,
/// log and call libzmq (none of which is allowed inside a signal handler).
///
/// The handler only writes the signal number to a pipe (the self-pipe trick, async-signal-safe); a
/// watcher thread reads the pipe and calls `handler`. Handlers are installed with `SA_RESTART`, so other
/// threads' blocking reads, writes and `waitpid` calls are not disturbed; `zmq_poll` may return early
/// with EINTR, which IsobarBus treats as "nothing ready yet".
///
/// Create one per process, before starting threads that must not die on a signal. Children started
/// with `ChildProcess` get default dispositions back (the handlers and ignored SIGPIPE are not inherited).
public final class SignalWatcher: @unchecked Sendable {
    // @unchecked Sendable: the instance holds no state; the pipe it shares with the handler is
    // set up once under a lock.

    /// Installs handlers for `signals`, sets every signal in `ignoring` to `SIG_IGN` (SIGPIPE by default,
    /// so writing to a pipe whose reader died fails with EPIPE instead of killing the process), and calls
    /// `handler` on a watcher thread for every signal received, in order.
    public init(
        signals: [Int32] = [SIGTERM, SIGINT],
        ignoring: [Int32] = [SIGPIPE],
        handler: @escaping @Sendable (Int32) -> Void
    ) throws(SignalWatcherError) {
        let readEnd = try SignalPipe.shared()
        for number in ignoring {
            _ = signal(number, SIG_IGN)
        }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = signalWatcherHandler
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            if sigaction(number, &action, nil) != 0 {
                throw SignalWatcherError(operation: "sigaction(\(number))", errno: errno)
            }
        }
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 {
                    handler(Int32(byte))
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        thread.name = "isobar-signals"
        thread.start()
    }

    /// A short name for a signal number, for log lines: `SIGTERM`, `SIGINT`, or `signal 12`.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGKILL: "SIGKILL"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        case SIGPIPE: "SIGPIPE"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }
}

/// Installing a signal handler failed (only with an invalid signal number, or out of file descriptors).
public struct SignalWatcherError: Error, CustomStringConvertible {
    public let operation: String
    public let errno: Int32
    public var description: String { "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The process-wide self-pipe; the write end is what the C signal handler sees.
private enum SignalPipe {
    private static let lock = NSLock()
    // Guarded by `lock` for writes; read (without the lock) only by the signal handler, after it was set.
    nonisolated(unsafe) static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var readEnd: Int32 = -1

    static func shared() throws(SignalWatcherError) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if readEnd >= 0 { return readEnd }
        var fds: [Int32] = [0, 0]
        if pipe(&fds) != 0 { throw SignalWatcherError(operation: "pipe", errno: errno) }
        // Close-on-exec: children must not inherit (and hold open) the signal pipe.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        // A full pipe (thousands of signals unread) must not block the handler.
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        readEnd = fds[0]
        writeEnd = fds[1]
        return readEnd
    }
}

/// The C signal handler: async-signal-safe, it only saves errno and writes one byte.
private func signalWatcherHandler(_ signal: Int32) {
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(SignalPipe.writeEnd, &byte, 1)
    errno = savedErrno
}
