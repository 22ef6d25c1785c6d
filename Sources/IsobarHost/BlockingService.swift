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

    /// Runs this service in a `ServiceGroup` until its loop returns and gives the loop's status.
    /// SIGTERM/SIGINT stop it (the group's graceful shutdown); a second one kills, and so does a
    /// stop that takes longer than `stopBudget` (nil: no limit).
    ///
    /// Both signals are counted by one listener, swift-service-lifecycle's `UnixSignalsSequence`,
    /// which triggers the group's graceful shutdown on the first and calls `kill` on the second.
    /// (Two listeners, the group's and a counter, raced: a dispatch signal source merges signals
    /// that arrive before its handler runs, so under load the counter could see the two signals as
    /// one while the group had already acted on the first, and the second never killed.)
    /// SIGPIPE is ignored first, so a write to a pipe whose reader died fails with EPIPE instead of
    /// ending the process.
    public func runUntilSignalled(logger: Logger, stopBudget: Duration? = nil) async -> Int32 {
        _ = signal(SIGPIPE, SIG_IGN)
        let kill = self.kill
        var configuration = ServiceGroupConfiguration(services: [.init(service: self, successTerminationBehavior: .gracefullyShutdownGroup)], logger: logger)
        configuration.maximumGracefulShutdownDuration = stopBudget
        let group = ServiceGroup(configuration: configuration)
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let listener = Task {
            var seen = 0
            for await _ in signals {
                seen += 1
                if seen == 1 {
                    await group.triggerGracefulShutdown()
                } else if seen == 2 {
                    Thread.detachNewThread { kill() }
                }
            }
        }
        defer { listener.cancel() }
        do {
            try await group.run()
        } catch {
            logger.error("\(name): \(error)")
        }
        return status
    }
}
