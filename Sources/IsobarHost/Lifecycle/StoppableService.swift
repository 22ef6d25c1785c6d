import ServiceLifecycle
import Synchronization

/// An async main loop as a swift-service-lifecycle `Service`: the group's graceful shutdown calls
/// `stop`, an orderly stop the loop returns from; its cancellation (a stop over budget) calls
/// `kill`. The loop's result is the process's exit status.
public final class StoppableService: Service, Sendable {
    private let body: @Sendable () async -> Int32
    private let stop: @Sendable () -> Void
    private let kill: @Sendable () -> Void
    private let result = Mutex<Int32>(0)

    public init(body: @escaping @Sendable () async -> Int32, stop: @escaping @Sendable () -> Void,
                kill: @escaping @Sendable () -> Void) {
        self.body = body
        self.stop = stop
        self.kill = kill
    }

    /// The loop's exit status (0 until it has returned).
    public var status: Int32 { result.withLock { $0 } }

    public func run() async throws {
        let stop = self.stop, kill = self.kill
        let code = await withTaskCancellationHandler {
            await withGracefulShutdownHandler { await body() } onGracefulShutdown: { stop() }
        } onCancel: {
            kill()
        }
        result.withLock { $0 = code }
    }
}
