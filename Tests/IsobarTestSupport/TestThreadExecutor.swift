import Foundation

/// A `TaskExecutor` that runs its jobs on one dedicated thread (in order), so the test WebSocket
/// clients' async code and the process harness's copies of its children's output never wait for
/// a free thread of the cooperative pool (a test that blocks in a synchronous socket read holds one).
final class TestThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is guarded by `condition`.
    static let shared = TestThreadExecutor(name: "test-websocket-clients")
    /// Where `ProcessHarness` runs its processes (their output copies, their exit).
    static let harness = TestThreadExecutor(name: "test-process-harness")

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
