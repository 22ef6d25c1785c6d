import Foundation
import IsobarCore
import IsobarStore
import Testing

/// The store replays the snapshot that wins by `SnapshotRank` (newest data wins), whatever order
/// the snapshots were stored in.
@Suite struct SnapshotRankStoreTests {
    typealias Support = StoreTestSupport

    @Test func latestIsTheHighestRankNotTheLastStored() throws {
        try Support.withTemporaryDirectory { dir in
            let base = try Support.fixture(.today)
            let store = try SnapshotStore(path: dir + "/store.sqlite")
            let contents = (0..<4).map { Support.variant(base, step: $0) }
            let ids = contents.map { OnXFeed.snapshotID(day: .today, stations: $0) }
            // Stored newest first, then older ones arrive (a replay from a second persister).
            try store.save(day: .today, id: ids[0], stations: contents[0], fetchedAt: 2_000, storedAt: 10)
            try store.save(day: .today, id: ids[1], stations: contents[1], fetchedAt: 1_000, storedAt: 20)
            #expect(try store.latest(day: .today)?.id == ids[0])
            // Two at the same fetch time: the greater id wins, stored in either order.
            let tied = [ids[2], ids[3]].sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            let greater = try #require(tied.last), smaller = try #require(tied.first)
            let byID = Dictionary(uniqueKeysWithValues: zip(ids, contents))
            try store.save(day: .today, id: greater, stations: try #require(byID[greater]), fetchedAt: 3_000, storedAt: 30)
            try store.save(day: .today, id: smaller, stations: try #require(byID[smaller]), fetchedAt: 3_000, storedAt: 40)
            #expect(try store.latest(day: .today)?.id == greater)
            #expect(SnapshotRank(fetchedAt: 3_000, snapshot: smaller) < SnapshotRank(fetchedAt: 3_000, snapshot: greater))
        }
    }
}
