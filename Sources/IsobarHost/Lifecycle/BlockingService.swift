import Foundation
import Logging
import Synchronization
import ServiceLifecycle
import UnixSignals

/// A process's blocking main loop (the broker's `zmq_proxy`, a plug's or `up`'s supervision,
/// attach's input loop) as a swift-service-lifecycle `Service`, so every long-running isobar
/// process stops through one path: a `ServiceGroup` whose graceful-shutdown signals are SIGTERM
/// and SIGINT (fetch, the sample feed and the gateway are async services in the same kind of group).
///
/// The loop runs on a thread of its own: it blocks in C calls (`zmq_poll`, `waitpid`, `read`),
/// which must not hold a thread of the Swift concurrency pool. The first SIGTERM or SIGINT calls
/// `stop`, an orderly stop the loop notices and returns from. A second signal calls `kill`
/// (whatever must end at once), and so does a stop that overruns the budget given to
/// `runUntilSignalled` (the group then cancels the service). Both are called on a fresh thread,
/// since they may block.
public final class BlockingService: Service, Sendable {
    public let name: String
    private let body: @Sendable () -> Int32
    private let stop: @Sendable () -> Void
    private let kill: @Sendable () -> Void
    /// The loop's exit status once it has returned.
    private let result = Mutex<Int32?>(nil)

    /// `body` is the loop (its return value is the process's exit status); `stop` asks it to end in
    /// order; `kill` makes it end now. `stop` and `kill` may be called while `body` has not started.
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
                Thread.detachNewThread { stop() }
            }
        } onCancel: {
            Thread.detachNewThread { kill() }
        }
    }

    /// Runs this service in a `ServiceGroup` until its loop returns and gives the loop's status
    /// (``SignalledGroup``: SIGTERM/SIGINT stop it, a second one, or a stop over `stopBudget`, kills).
    public func runUntilSignalled(logger: Logger, stopBudget: Duration? = nil) async -> Int32 {
        let kill = self.kill
        await SignalledGroup.run(self, name: name, logger: logger, stopBudget: stopBudget) {
            Thread.detachNewThread { kill() }
        }
        return status
    }
}
