import Foundation
import Logging
import Synchronization
import ServiceLifecycle
import UnixSignals

/// A process's blocking main loop (the broker's `zmq_proxy`, a bus stage's `zmq_poll`, attach's
/// `poll`/`read` on stdin) as a swift-service-lifecycle `Service`, so every long-running isobar
/// process stops through one path: a `ServiceGroup` whose graceful-shutdown signals are SIGTERM
/// and SIGINT (fetch, the sample feed and the gateway are async services in the same kind of group).
///
/// The loop runs on the one thread this service starts, because it blocks in a C call that must
/// not hold a thread of the Swift concurrency pool: `zmq_proxy` (the broker: libzmq has no async
/// form of it), `zmq_poll` (a bus stage: libzmq sockets are used by one thread), or `poll(2)` on
/// stdin and a ``StopFlag``'s wake descriptor (attach). Nothing in it waits on a timeout: the
/// first SIGTERM or SIGINT calls `stop`, which wakes the loop (a wake descriptor, a context
/// shutdown) so it returns at once. A second signal calls `kill` (whatever must end at once), and
/// so does a stop that overruns the budget given to `runUntilSignalled` (the group then cancels
/// the service). `stop` and `kill` are called where the signal is handled and must not block:
/// they only raise a flag and wake the loop.
public final class BlockingService: Service, Sendable {
    public let name: String
    private let body: @Sendable () -> Int32
    private let stop: @Sendable () -> Void
    private let kill: @Sendable () -> Void
    /// The loop's exit status once it has returned.
    private let result = Mutex<Int32?>(nil)

    /// `body` is the loop (its return value is the process's exit status); `stop` asks it to end in
    /// order; `kill` makes it end now. `stop` and `kill` may be called while `body` has not started,
    /// and must return at once (raise a flag, write a wake descriptor, shut a context down).
    public init(name: String, body: @escaping @Sendable () -> Int32, stop: @escaping @Sendable () -> Void,
                kill: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
        self.stop = stop
        self.kill = kill
    }

    /// The loop's exit status (0 until it has returned).
    public var status: Int32 { result.withLock { $0 ?? 0 } }

    public func run() async throws {
        let stop = self.stop, kill = self.kill
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let thread = Thread { [self] in
                        let code = body()
                        result.withLock { $0 = code }
                        done.resume()
                    }
                    thread.name = "isobar-\(name)"
                    thread.start()
                }
            } onGracefulShutdown: {
                stop()
            }
        } onCancel: {
            kill()
        }
    }

    /// Runs this service in a `ServiceGroup` until its loop returns and gives the loop's status
    /// (``SignalledGroup``: SIGTERM/SIGINT stop it, a second one, or a stop over `stopBudget`, kills).
    public func runUntilSignalled(logger: Logger, stopBudget: Duration? = nil) async -> Int32 {
        let kill = self.kill
        await SignalledGroup.run(self, name: name, logger: logger, stopBudget: stopBudget, kill: kill)
        return status
    }
}
