import IsobarCore

/// The life of one supervised command, the one supervisor logic shared by `isobar up` (one per
/// service) and `isobar plug`: when to restart and after what wait (``Backoff``), when to give up,
/// and what a stop request means in each state. Pure (no processes, no clock of its own): its
/// owner holds it under a lock and carries out what it decides, so every transition is
/// unit-tested (`SupervisedCommandTests`) apart from the processes.
///
/// ```
/// starting -> running -> backingOff -> starting ...   (the command exited; restarts on)
///                     -> stopped                      (the command exited; restarts off)
/// any      -> stopping -> stopped                     (a stop request)
/// ```
struct SupervisedCommand<Child> {
    enum State {
        /// About to spawn the command.
        case starting
        /// The command runs (since `since`).
        case running(Child, since: ContinuousClock.Instant)
        /// The command exited; the next start is due at `until`.
        case backingOff(until: ContinuousClock.Instant)
        /// A stop was requested; the child, if one runs, is being stopped.
        case stopping(Child?)
        /// Done, with the status the owner exits with (plug) or reports.
        case stopped(exitCode: Int32)
    }

    /// What to do after the command exited (or could not be started).
    enum AfterExit: Equatable {
        /// Start it again after this wait (the state is `backingOff`).
        case restart(after: Duration)
        /// Restarts are off: finish with this status (the state is `stopped`).
        case finish(exitCode: Int32)
        /// A stop is under way: do nothing more.
        case stop
    }

    /// What a stop request asks of the owner.
    enum StopAction {
        /// Nothing runs (or the stop is already done).
        case none
        /// The first request while the command runs: stop it in order (the owner's sequence of
        /// closing stdin or SIGTERM, graces, then SIGKILL to its process group).
        case stopInOrder(Child)
        /// A second request, or a kill: SIGKILL its process group now.
        case kill(Child)
    }

    private(set) var state: State = .starting
    /// Restarts so far (for log lines).
    private(set) var restarts = 0
    private var backoff: Backoff
    /// Whether an exited command is started again (plug's `--no-restart` turns it off).
    let restartsOn: Bool

    init(backoff: Backoff = Backoff(), restart: Bool = true) {
        self.backoff = backoff
        self.restartsOn = restart
    }

    /// The running child, or the one being stopped.
    var currentChild: Child? {
        switch state {
        case .running(let child, _): child
        case .stopping(let child): child
        case .starting, .backingOff, .stopped: nil
        }
    }

    /// Whether a stop has begun (nothing is started any more).
    var isShuttingDown: Bool {
        switch state {
        case .stopping, .stopped: true
        case .starting, .running, .backingOff: false
        }
    }

    /// A start is due (the backoff ended, or the first start): false when a stop began meanwhile.
    mutating func beginStart() -> Bool {
        guard !isShuttingDown else { return false }
        state = .starting
        return true
    }

    /// The command was spawned. False when a stop began meanwhile: the owner stops `child` at once
    /// (the state is then `stopping(child)`).
    mutating func started(_ child: Child, at now: ContinuousClock.Instant) -> Bool {
        guard !isShuttingDown else {
            state = .stopping(child)
            return false
        }
        state = .running(child, since: now)
        return true
    }

    /// The command exited with shell status `status` after running `ranFor` (`failedToStart`:
    /// it could not be spawned, status 127).
    mutating func exited(status: Int32, ranFor: Duration, at now: ContinuousClock.Instant) -> AfterExit {
        if isShuttingDown {
            if case .stopping = state { state = .stopping(nil) }
            return .stop
        }
        guard restartsOn else {
            state = .stopped(exitCode: status)
            return .finish(exitCode: status)
        }
        let delay = backoff.nextDelay(afterRunningFor: ranFor)
        restarts += 1
        state = .backingOff(until: now + delay)
        return .restart(after: delay)
    }

    mutating func failedToStart(at now: ContinuousClock.Instant) -> AfterExit {
        exited(status: 127, ranFor: .zero, at: now)
    }

    /// A graceful stop was requested (SIGTERM/SIGINT). A second request while the child is still
    /// being stopped kills it.
    mutating func requestStop() -> StopAction {
        switch state {
        case .running(let child, _):
            state = .stopping(child)
            return .stopInOrder(child)
        case .starting, .backingOff:
            state = .stopping(nil)
            return .none
        case .stopping(let child?):
            return .kill(child)
        case .stopping(nil), .stopped:
            return .none
        }
    }

    /// Stop now (a second signal, or a stop over its budget): kill whatever runs.
    mutating func kill() -> StopAction {
        switch state {
        case .running(let child, _), .stopping(let child?):
            state = .stopping(child)
            return .kill(child)
        case .starting, .backingOff, .stopping(nil):
            state = .stopping(nil)
            return .none
        case .stopped:
            return .none
        }
    }

    /// The stop is complete.
    mutating func finish(exitCode: Int32) {
        state = .stopped(exitCode: exitCode)
    }
}

extension SupervisedCommand: Sendable where Child: Sendable {}
extension SupervisedCommand.State: Sendable where Child: Sendable {}
extension SupervisedCommand.AfterExit: Sendable {}
extension SupervisedCommand.StopAction: Sendable where Child: Sendable {}
