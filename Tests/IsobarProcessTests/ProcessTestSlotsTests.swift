import Dispatch
import Foundation
import Synchronization
import Testing
@testable import IsobarTestSupport

/// The cap on process tests running at once (`ProcessTestSlots`): the async process tests would
/// otherwise all start together and starve each other's deadlines.
@Suite struct ProcessTestSlotsTests {
    /// Ten bodies run through two slots, each yielding many times while it holds its slot (so the
    /// others run meanwhile): never more than two inside at once, and every one of them runs.
    @Test func twoSlotsRunAtMostTwoBodiesAtOnce() async throws {
        let slots = ProcessTestSlots(count: 2)
        let inside = Inside()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await slots.run {
                        inside.counts.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                        for _ in 0..<200 { await Task.yield() }
                        inside.counts.withLock { $0.now -= 1; $0.done += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (now, peak, done) = inside.counts.withLock { $0 }
        #expect(peak <= 2 && now == 0 && done == 10, "peak \(peak), inside at the end \(now), done \(done)")
    }

    /// As many bodies as the cooperative pool has threads (one per core), each blocking its thread
    /// until a task on the pool has run: they run on their slots' own threads, so the pool is free
    /// and the task runs at once. (When a body ran on the pool, the bodies held all of its threads,
    /// the task never ran, and each body gave up after its 10 s.)
    @Test func aBodyThatBlocksItsThreadHoldsNoThreadOfThePool() async throws {
        let width = ProcessInfo.processInfo.activeProcessorCount
        let slots = ProcessTestSlots(count: width)
        let released = DispatchSemaphore(value: 0)
        let counts = Entries()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<width {
                group.addTask {
                    try await slots.run {
                        let last = counts.counts.withLock { $0.entered += 1; return $0.entered == width }
                        // The last one in asks the pool to release everyone.
                        if last { Task.detached { for _ in 0..<width { released.signal() } } }
                        if released.wait(timeout: .now() + 10) == .success { counts.counts.withLock { $0.released += 1 } }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (entered, freed) = counts.counts.withLock { $0 }
        #expect(entered == width && freed == width, "\(freed) of \(width) bodies released by a task on the pool")
    }

    /// How many bodies entered, how many were released by the task on the pool.
    private final class Entries: Sendable {
        let counts = Mutex((entered: 0, released: 0))
    }

    /// How many bodies are inside now, the most seen at once, how many ended.
    private final class Inside: Sendable {
        let counts = Mutex((now: 0, peak: 0, done: 0))
    }
}
