import Synchronization

/// A one-way "stop now" flag shared between a service's shutdown handler and a loop that blocks
/// on input (attach's stdin, the terminal map's keys): the loop waits in `poll` with a short
/// timeout and looks at the flag between waits.
public final class StopFlag: Sendable {
    private let raised = Mutex(false)

    public init() {}

    /// Asks the loop to stop; it notices within one poll timeout.
    public func raise() { raised.withLock { $0 = true } }

    public var isRaised: Bool { raised.withLock { $0 } }

    /// How long such a loop waits in `poll` before it looks at the flag again (milliseconds).
    public static let pollMilliseconds: Int32 = 200
}
