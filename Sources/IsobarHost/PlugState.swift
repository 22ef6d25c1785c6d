/// The lifecycle of the command a plug supervises. Owned by `Plug`, changed only under its lock.
///
/// ```
/// starting -> running -> backingOff -> starting ...      (COMMAND exited; restarts on)
///                     -> stopped                        (COMMAND exited; --no-restart)
/// any      -> stopping -> stopped                       (SIGTERM/SIGINT)
/// ```
enum PlugState {
    /// About to spawn COMMAND.
    case starting
    /// COMMAND runs; the input thread writes to its stdin.
    case running(ChildProcess, since: ContinuousClock.Instant)
    /// COMMAND exited; the next start is due at `until`.
    case backingOff(until: ContinuousClock.Instant)
    /// Shutdown requested; the child, if one runs, is being stopped (stdin closed, then SIGTERM, SIGKILL).
    case stopping(ChildProcess?)
    /// Done: plug is closing its sockets and will exit with `exitCode`.
    case stopped(exitCode: Int32)

    /// The running child, if any: where received messages go.
    var runningChild: ChildProcess? {
        if case .running(let child, _) = self { return child }
        return nil
    }

    /// Whether shutdown has begun (the input thread then closes stdin and stops).
    var isShuttingDown: Bool {
        switch self {
        case .stopping, .stopped: true
        case .starting, .running, .backingOff: false
        }
    }
}
