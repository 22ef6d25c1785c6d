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
/// Use: `@Suite(.processSlot)` on a suite of such tests (every test in it, nested suites too,
/// takes a slot for its run), or `@Test(.processSlot)` on one test.
actor ProcessTestSlots {
    /// The one cap every process test in this test run shares: one slot per core, at least two
    /// (what the synchronous tests had on a 2-core machine).
    static let shared = ProcessTestSlots(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Whether the current task runs inside a slot (set by the `.processSlot` trait).
    @TaskLocal static var held = false

    /// Slots free now.
    private var free: Int
    /// Tests waiting for a slot, first come first served.
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    /// Takes a slot, waiting (without holding a thread) until one is free.
    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back: to the longest waiting test, else to the pool.
    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `body` in a slot: waits for one, marks the task as holding it, gives it back after.
    func run(_ body: @Sendable () async throws -> Void) async throws {
        await acquire()
        do {
            try await Self.$held.withValue(true) { try await body() }
        } catch {
            release()
            throw error
        }
        release()
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
