import Foundation
import IsobarCore
import IsobarStore
import Testing

/// `SnapshotStore` on real SQLite files: round trips, pruning, duplicates, refetches.
@Suite struct SnapshotStoreTests {
    typealias Support = StoreTestSupport

    @Test func roundTripsBothFixturesExactlyIncludingNulls() throws {
        try Support.withTemporaryDirectory { dir in
            let today = try Support.fixture(.today)
            let tomorrow = try Support.fixture(.tomorrow)
            try #require(today.count == 181)
            // The fixture has unknown values; they must come back as nil, never 0.
            #expect(today.contains { $0.id == "K6V4" && $0.temperature == nil })
            let todayID = OnXFeed.snapshotID(day: .today, stations: today)
            let tomorrowID = OnXFeed.snapshotID(day: .tomorrow, stations: tomorrow)

            let store = try SnapshotStore(path: dir + "/store.sqlite")
            #expect(try store.save(day: .today, id: todayID, stations: today, fetchedAt: 1_700_000_000.25, storedAt: 1_700_000_001) == .stored(pruned: 0))
            #expect(try store.save(day: .tomorrow, id: tomorrowID, stations: tomorrow, fetchedAt: 1_700_000_002) == .stored(pruned: 0))

            let latest = try #require(try store.latest(day: .today))
            #expect(latest == StoredSnapshot(day: .today, id: todayID, fetchedAt: 1_700_000_000.25, storedAt: 1_700_000_001, stations: today))
            #expect(try store.latest(day: .tomorrow)?.stations == tomorrow)
            try store.close()

            // And again from a fresh connection: nothing lived only in memory.
            let reopened = try SnapshotStore(path: dir + "/store.sqlite")
            #expect(try reopened.latest(day: .today)?.stations == today)
            #expect(try reopened.latest(day: .today)?.stations.first { $0.id == "K6V4" }?.temperature == nil)
        }
    }

    @Test func keepsOnlyTheLastNPerDay() throws {
        try Support.withTemporaryDirectory { dir in
            let base = try Support.fixture(.today)
            let store = try SnapshotStore(path: dir + "/store.sqlite", keep: 3)
            var ids: [String] = []
            for step in 0..<5 {
                let stations = Support.variant(base, step: step)
                let id = OnXFeed.snapshotID(day: .today, stations: stations)
                ids.append(id)
                let outcome = try store.save(day: .today, id: id, stations: stations, fetchedAt: 1_000 + Double(step))
                #expect(outcome == .stored(pruned: step < 3 ? 0 : 1))
            }
            try store.save(day: .tomorrow, id: "tomorrow-x", stations: Array(base.prefix(2)), fetchedAt: 1)

            #expect(try store.snapshots(day: .today).map(\.id) == ids.suffix(3).reversed())
            #expect(try store.latest(day: .today)?.id == ids[4])
            #expect(try store.latest(day: .today)?.stations == Support.variant(base, step: 4))
            // The pruned snapshots' stations went with them, and the other day was left alone.
            #expect(try store.stationRowCount() == 3 * base.count + 2)
            #expect(try store.snapshots(day: .tomorrow).map(\.id) == ["tomorrow-x"])
        }
    }

    @Test func sameIDIsNotStoredTwice() throws {
        try Support.withTemporaryDirectory { dir in
            let stations = try Support.fixture(.today)
            let id = OnXFeed.snapshotID(day: .today, stations: stations)
            let store = try SnapshotStore(path: dir + "/store.sqlite")
            #expect(try store.save(day: .today, id: id, stations: stations, fetchedAt: 50, storedAt: 60) == .stored(pruned: 0))
            #expect(try store.save(day: .today, id: id, stations: stations, fetchedAt: 50, storedAt: 70) == .alreadyStored)
            #expect(try store.save(day: .today, id: id, stations: stations, fetchedAt: 40, storedAt: 80) == .alreadyStored)
            #expect(try store.snapshots(day: .today).count == 1)
            #expect(try store.stationRowCount() == stations.count)
            #expect(try store.latest(day: .today)?.storedAt == 60)
        }
    }

    /// A feed that goes A, B, then back to A: the second A is already stored under its content id,
    /// yet it is the current data, so it must become the latest again (without being rewritten).
    @Test func contentFetchedAgainBecomesTheLatest() throws {
        try Support.withTemporaryDirectory { dir in
            let a = try Support.fixture(.today)
            let b = Support.variant(a, step: 1)
            let idA = OnXFeed.snapshotID(day: .today, stations: a)
            let idB = OnXFeed.snapshotID(day: .today, stations: b)
            let store = try SnapshotStore(path: dir + "/store.sqlite")
            try store.save(day: .today, id: idA, stations: a, fetchedAt: 100)
            try store.save(day: .today, id: idB, stations: b, fetchedAt: 200)
            #expect(try store.latest(day: .today)?.id == idB)
            #expect(try store.save(day: .today, id: idA, stations: a, fetchedAt: 300) == .refreshed)
            #expect(try store.latest(day: .today)?.id == idA)
            #expect(try store.latest(day: .today)?.fetchedAt == 300)
            #expect(try store.stationRowCount() == 2 * a.count)
        }
    }

    /// An older snapshot arriving late (another publisher's replay) never displaces newer data.
    @Test func olderSnapshotArrivingLateDoesNotBecomeLatest() throws {
        try Support.withTemporaryDirectory { dir in
            let a = try Support.fixture(.today)
            let b = Support.variant(a, step: 1)
            let store = try SnapshotStore(path: dir + "/store.sqlite")
            try store.save(day: .today, id: "new", stations: b, fetchedAt: 200, storedAt: 201)
            try store.save(day: .today, id: "old", stations: a, fetchedAt: 100, storedAt: 300)
            #expect(try store.latest(day: .today)?.id == "new")
        }
    }

    @Test func keepOfZeroIsRefused() throws {
        _ = try Support.withTemporaryDirectory { dir in
            #expect(throws: StoreError.self) { try SnapshotStore(path: dir + "/store.sqlite", keep: 0) }
        }
    }
}
