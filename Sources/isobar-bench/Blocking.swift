import Dispatch
import Synchronization

/// Runs async work from the synchronous code of a benchmark that is not async yet (the gateway
/// benchmark and its fleets): blocks the calling thread, never one of the shared pool's, until the
/// work returns. An untimed wait on the work's own end, not a timer.
enum Blocking {
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }

    static func run(_ operation: @escaping @Sendable () async -> Void) {
        _ = try? run { () async throws -> Bool in await operation(); return true }
    }
}
