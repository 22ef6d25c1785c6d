import Foundation
import IsobarCore
import IsobarStore
import Testing

/// Persist and the filter judge snapshots by the same rule (`SnapshotAcceptance`), so after any
/// sequence of bus lines the store's latest snapshot is the one the filter shows (issue 27,
/// item 2: a lone empty end marker emptied every map while persist kept the old data), and a
/// storm of bare resyncs costs one replay per interval (item 6).
@Suite struct PersistFilterAgreementTests {
    typealias Support = StoreTestSupport
    static let wall = 1_700_000_000.0

    /// The same text to both; returns persist's output lines.
    private func both(_ stage: inout PersistStage, _ filter: FilterEngine, _ text: String) -> [String] {
        var writer = JSONWriter()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &writer) }
        }
        return Support.run(&stage, text)
    }

    @Test func persistAndFilterHoldTheSameSnapshotThroughForgedAndEmptyOnes() throws {
        try Support.withTemporaryDirectory { dir in
            let store = try SnapshotStore(path: dir + "/store.sqlite", keep: 10)
            var stage = try PersistStage(store: store, logger: Support.quietLogger, clock: { Self.wall })
            let filter = FilterEngine(wallClock: { Self.wall })
            let today = try Support.fixture(.today)
            let good = OnXFeed.snapshotID(day: .today, stations: today)
            func agree() throws {
                #expect(try store.latest(day: .today)?.id == filter.snapshot(for: .today)?.id)
            }
            _ = both(&stage, filter, Support.snapshotText(.today, today, fetchedAt: Self.wall - 60))
            try agree()
            // Forged: one station 5 s ahead (shrunk), all stations 10 years ahead (future), our id
            // moved 10 years ahead, and a lone empty end marker.
            let forged = both(&stage, filter, Support.snapshotText(.today, [today[0]], fetchedAt: Self.wall + 5, id: "forged-1"))
            #expect(forged.count == 1 && forged[0].contains("kept the previous one until a later fetch of the same content confirms it (1 held so far); not stored yet"))
            try agree()
            let future = both(&stage, filter, Support.snapshotText(.today, Support.variant(today, step: 3), fetchedAt: Self.wall + 315_360_000))
            #expect(future.count == 1 && future[0].contains("refused (1 so far); not stored"))
            try agree()
            let pinned = both(&stage, filter, #"{"type":"snapshot","day":"today","snapshot":"\#(good)","count":181,"fetchedAt":\#(Self.wall + 86_400)}"#)
            #expect(pinned.count == 1 && pinned[0].contains("refused (2 so far)"))
            try agree()
            #expect(try store.latest(day: .today)?.fetchedAt == Self.wall - 60)
            _ = both(&stage, filter, #"{"type":"snapshot","day":"today","snapshot":"empty","count":0,"fetchedAt":\#(Self.wall)}"#)
            try agree()
            #expect(filter.snapshot(for: .today)?.id == good)
            // A shrunk snapshot fetched again later is applied by both.
            let half = Array(today.prefix(60))
            _ = both(&stage, filter, Support.snapshotText(.today, half, fetchedAt: Self.wall + 1))
            try agree()
            #expect(filter.snapshot(for: .today)?.id == good)
            _ = both(&stage, filter, Support.snapshotText(.today, half, fetchedAt: Self.wall + 2))
            try agree()
            #expect(filter.snapshot(for: .today)?.id == OnXFeed.snapshotID(day: .today, stations: half))
        }
    }

    @Test func aFutureSnapshotStoredEarlierIsNotReplayed() throws {
        try Support.withTemporaryDirectory { dir in
            let store = try SnapshotStore(path: dir + "/store.sqlite", keep: 10)
            _ = try store.save(day: .today, id: "today-future", stations: try Support.fixture(.today), fetchedAt: Self.wall + 315_360_000,
                               storedAt: Self.wall)
            var stage = try PersistStage(store: store, logger: Support.quietLogger, clock: { Self.wall })
            let replay = Support.replay(&stage)
            #expect(replay.count == 1)
            #expect(replay.first?.contains("stored today snapshot today-future was fetched 315360000 s in the future; not replayed") == true)
        }
    }

    @Test func aResyncStormIsAnsweredOncePerInterval() throws {
        try Support.withTemporaryDirectory { dir in
            let store = try SnapshotStore(path: dir + "/store.sqlite", keep: 10)
            let clock = Clock()
            var stage = try PersistStage(store: store, logger: Support.quietLogger, clock: { clock.now }, resyncInterval: 1)
            _ = Support.run(&stage, Support.snapshotText(.today, try Support.fixture(.today), fetchedAt: Self.wall - 60))
            // 1,000 requests over 2.5 s of the stage's clock: replays at 0, 1 and 2 s only.
            var replays = 0
            for n in 0..<1_000 {
                clock.now = Self.wall + Double(n) * 0.0025
                replays += Support.run(&stage, #"{"type":"resync"}"#).filter { $0.contains(#""type":"snapshot""#) }.count
            }
            #expect(replays == 3)
            #expect(stage.droppedResyncs == 997)
        }
    }

    /// A settable clock for the stage (its closure must be Sendable).
    final class Clock: @unchecked Sendable {
        // @unchecked: only set and read on the test's one thread.
        var now = PersistFilterAgreementTests.wall
    }
}
