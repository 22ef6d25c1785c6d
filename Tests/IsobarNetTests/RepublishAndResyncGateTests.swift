import Foundation
import IsobarCore
import IsobarNet
import Synchronization
import Testing

/// Issue 27: an unchanged snapshot is announced again with its new fetch time (so a wrong one
/// cannot pin maps: item 2), and a storm of bare resyncs costs one republication per interval
/// (item 6).
@Suite struct RepublishAndResyncGateTests {
    @Test func anUnchangedSnapshotsEndMarkerIsRepublishedWithItsNewFetchTime() async throws {
        let clock = ManualClock(5_000)
        var options = FetchOptions(today: TestSupport.fixture(.today), tomorrow: TestSupport.fixture(.tomorrow))
        options.republishInterval = 300
        try await TestSupport.withFetcher(options, clock: clock.closure) { fetcher, output throws in
            #expect(await fetcher.fetch(.today))
            let id = try #require(await fetcher.latest(.today)?.id)
            output.clear()
            clock.advance(299)
            #expect(await fetcher.fetch(.today))
            #expect(output.text.isEmpty, "unchanged and announced less than 300 s ago: nothing")
            clock.advance(1)
            #expect(await fetcher.fetch(.today))
            #expect(try output.types() == ["snapshot"], "the end marker alone, no stations")
            #expect(try output.snapshots() == [SnapshotEnd(day: .today, snapshot: id, count: 181, source: .feed, fetchedAt: 5_300)])
            #expect(await fetcher.latest(.today)?.fetchedAt == 5_300)
            output.clear()
            clock.advance(10)
            #expect(await fetcher.fetch(.today))
            #expect(output.text.isEmpty)
            // A resync republishes with the new fetch time too (newest wins everywhere).
            await fetcher.resync(reason: "test")
            #expect(try output.snapshots().first { $0.day == .today }?.fetchedAt == 5_300)
        }
    }

    @Test func aStormOfResyncsCostsOneRepublicationPerInterval() async throws {
        let interval = 0.2
        let (events, continuation) = AsyncStream.makeStream(of: Void.self)
        let actions = Mutex(0)
        let gate = ResyncGate(interval: interval) { _ in
            actions.withLock { $0 += 1 }
            continuation.yield()
        }
        let started = ContinuousClock.now
        let requests = 20_000
        var caused = 0
        // 40 bursts of 500, 10 ms apart: the storm lasts long enough for queued work to run.
        for _ in 0..<40 {
            for _ in 0..<500 where gate.request(reason: "storm") { caused += 1 }
            try await Task.sleep(for: .milliseconds(10))
        }
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        // Every request either joined a queued republication or queued one; the queued ones are
        // at least `interval` apart, so there are at most elapsed / interval + 1 of them (+1 for
        // the one queued at the very end).
        #expect(caused + gate.coalesced == requests)
        #expect(Double(caused) <= elapsed / interval + 2)
        var iterator = events.makeAsyncIterator()
        for _ in 0..<caused { await iterator.next() }
        #expect(actions.withLock { $0 } == caused)
    }
}
