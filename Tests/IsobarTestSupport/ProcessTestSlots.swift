import Foundation
import Testing

/// How many tests that start real processes run at once (`ProcessHarness` refuses to start one
/// outside a slot), so the suites' few-second deadlines are not starved on a small machine.
///
/// Why: the process tests are async (they await their children's lines and exits), so Swift
/// Testing starts every one of them at once; dozens of `isobar up`, brokers and stages on 2 cores
/// then miss their deadlines (a plug stop that takes 26 s against an 11 s budget). When these tests
/// were synchronous, the cooperative pool's threads (one per core) capped them as a side effect;
/// this cap says so instead. A test waits for a slot before it starts, so the wait never counts
/// against its own deadlines.
///
/// Each slot has a thread of its own (a `TestThreadExecutor`), and a test runs there while it holds
/// the slot (its task's executor preference): a process test that blocks its thread (a socket
/// receive with a timeout, `usleep` between pans, a condition wait) blocks its slot's thread, not
/// one of the cooperative pool's (one per core, two here). Before, two such tests held the whole
/// pool for minutes (the kill -9 rounds), and every other test of the run, however trivial, waited
/// for a thread: a test's own deadlines, counted from its start, were eaten by others' blocking.
///
/// Use: `@Suite(.processSlot)` on a suite of such tests (every test in it, nested suites too,
/// takes a slot for its run), or `@Test(.processSlot)` on one test.
actor ProcessTestSlots {
    /// The one cap every process test in this test run shares: one slot per core, at least two
    /// (what the synchronous tests had on a 2-core machine).
    static let shared = ProcessTestSlots(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Whether the current task runs inside a slot (set by the `.processSlot` trait).
    @TaskLocal static var held = false

    /// Slots free now: each one's thread.
    private var free: [TestThreadExecutor]
    /// Tests waiting for a slot, first come first served.
    private var waiting: [CheckedContinuation<TestThreadExecutor, Never>] = []

    init(count: Int) {
        free = (0..<count).map { TestThreadExecutor(name: "test-process-slot-\($0)") }
    }

    /// Takes a slot (its thread), waiting (without holding a thread) until one is free.
    func acquire() async -> TestThreadExecutor {
        if let slot = free.popLast() { return slot }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back: to the longest waiting test, else to the free ones.
    func release(_ slot: TestThreadExecutor) {
        if waiting.isEmpty {
            free.append(slot)
        } else {
            waiting.removeFirst().resume(returning: slot)
        }
    }

    /// Runs `body` in a slot: waits for one, marks the task as holding it, runs it on the slot's
    /// thread, gives the slot back after.
    nonisolated func run(_ body: @Sendable () async throws -> Void) async throws {
        let slot = await acquire()
        do {
            try await withTaskExecutorPreference(slot) {
                try await Self.$held.withValue(true) { try await body() }
            }
        } catch {
            await release(slot)
            throw error
        }
        await release(slot)
    }
}

/// The trait that runs a test (or each test of a suite, recursively) in a `ProcessTestSlots` slot.
struct ProcessSlotTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // A suite itself starts nothing: only its test cases take slots.
        guard testCase != nil else { return try await function() }
        try await ProcessTestSlots.shared.run(function)
    }
}

extension Trait where Self == ProcessSlotTrait {
    /// Runs the test (each test of the suite) in one of the `ProcessTestSlots`: see there.
    static var processSlot: Self { Self() }
}
