#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
@testable import IsobarTestSupport

/// The test harness itself: a test that fails while its process runs leaves nothing behind.
@Suite(.processSlot) struct ProcessHarnessTests {
    /// A test's body: starts a shell with descendants in its group, in a group of their own and in
    /// a session of their own, then fails (throws) without stopping them.
    private struct Failed: Error {}

    private static func failingTest(_ started: @Sendable ([pid_t]) -> Void) async throws {
        let shell = try await ProcessHarness("sh", ["-c", "sleep 1000 & setsid sleep 1000 & sh -c 'sleep 1000' & echo up; wait"])
        #expect(await shell.nextStdoutLine(timeout: .seconds(20)) == "up", "\(shell.stderrText)")
        var descendants: [pid_t] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while descendants.count < 4 && ContinuousClock.now < deadline {
            descendants = ProcessHarness.descendants(of: shell.pid)
            try await Task.sleep(for: .milliseconds(20))
        }
        started([shell.pid] + descendants)
        throw Failed()
    }

    /// Dropping the harness (a test that threw) kills the process and every descendant, whatever
    /// group or session it moved to.
    @Test func aFailingTestLeavesNoProcessBehind() async throws {
        let pids = PIDList()
        await #expect(throws: Failed.self) { try await Self.failingTest { pids.set($0) } }
        let started = pids.get()
        try #require(started.count >= 5, "the shell and its four descendants: \(started)")
        let deadline = ContinuousClock.now + .seconds(10)
        while started.contains(where: ProcessHarness.isAlive) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(started.filter(ProcessHarness.isAlive) == [], "left running")
        for pid in started where ProcessHarness.isAlive(pid) { kill(pid, SIGKILL) }
    }

    /// A test without a slot (no `.processSlot` trait) cannot start a process: its suite fails at
    /// once instead of running beside every other process test.
    @Test func aProcessStartsOnlyInASlot() async throws {
        await ProcessTestSlots.$held.withValue(false) {
            await #expect(throws: ProcessHarness.LaunchError.self) { _ = try await ProcessHarness("true", []) }
        }
    }

    /// The pids a failing test saw, handed out of it.
    private final class PIDList: Sendable {
        private let pids = Mutex<[pid_t]>([])
        func set(_ list: [pid_t]) { pids.withLock { $0 = list } }
        func get() -> [pid_t] { pids.withLock { $0 } }
    }
}
