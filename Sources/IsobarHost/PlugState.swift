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

    /// The child whose stdin the input thread should hold: the running one (messages go there), or the
    /// one being stopped (its stdin must be closed even if the input thread never wrote to it).
    var currentChild: ChildProcess? {
        switch self {
        case .running(let child, _): child
        case .stopping(let child): child
        case .starting, .backingOff, .stopped: nil
        }
    }

    /// Whether shutdown has begun (the input thread then closes stdin and stops).
    var isShuttingDown: Bool {
        switch self {
        case .stopping, .stopped: true
        case .starting, .running, .backingOff: false
        }
    }
}
