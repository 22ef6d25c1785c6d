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

    /// How many bodies are inside now, the most seen at once, how many ended.
    private final class Inside: Sendable {
        let counts = Mutex((now: 0, peak: 0, done: 0))
    }
}
