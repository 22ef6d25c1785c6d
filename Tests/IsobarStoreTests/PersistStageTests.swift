import Foundation
import IsobarCore
import IsobarStore
import Testing

/// The persist stage driven line by line against a real store: completeness, replay after a
/// restart, own replays, resync, pass-through and bad lines.
@Suite struct PersistStageTests {
    typealias Support = StoreTestSupport
    static let fetchedAt = 1_700_000_000.0

    private func openStage(_ dir: String, now: Double = Self.fetchedAt, keep: Int = 10) throws -> PersistStage {
        let store = try SnapshotStore(path: dir + "/store.sqlite", keep: keep)
        return try PersistStage(store: store, logger: Support.quietLogger, clock: { now })
    }

    @Test func completeSnapshotIsStoredSilently() throws {
        try Support.withTemporaryDirectory { dir in
            let stations = try Support.fixture(.today)
            var stage = try openStage(dir)
            let output = Support.run(&stage, Support.snapshotText(.today, stations, fetchedAt: Self.fetchedAt))
            #expect(output == [])
            let latest = try #require(try stage.store.latest(day: .today))
            #expect(latest.stations == stations)
            #expect(latest.id == OnXFeed.snapshotID(day: .today, stations: stations))
            #expect(latest.fetchedAt == Self.fetchedAt)
        }
    }

    @Test func incompleteSnapshotIsNotStored() throws {
        try Support.withTemporaryDirectory { dir in
            let stations = try Support.fixture(.today)
            var stage = try openStage(dir)
            var lines = Support.snapshotText(.today, stations, fetchedAt: Self.fetchedAt).split(separator: "\n")
            lines.remove(at: 5)  // station seq 4 lost on the way
            let output = Support.run(&stage, lines.joined(separator: "\n"))
            try #require(output.count == 1)
            #expect(Support.type(output[0]) == "error")
            #expect(output[0].contains("incomplete: 180 of 181 stations arrived; not stored"))
            #expect(try stage.store.latest(day: .today) == nil)
            #expect(try stage.store.stationRowCount() == 0)
        }
    }

    @Test func endMarkerWithoutStationsIsNotStored() throws {
        try Support.withTemporaryDirectory { dir in
            var stage = try openStage(dir)
            let output = Support.run(&stage, #"{"type":"snapshot","day":"today","snapshot":"today-1","count":3,"fetchedAt":5}"#)
            try #require(output.count == 1)
            #expect(output[0].contains("none of its 3 stations arrived; not stored"))
            let empty = Support.run(&stage, #"{"type":"snapshot","day":"today","snapshot":"today-2","count":0,"fetchedAt":5}"#)
            try #require(empty.count == 1)
            #expect(empty[0].contains("has no stations; not stored"))
            #expect(try stage.store.latest(day: .today) == nil)
        }
    }

    /// The restart test: store through one stage, reopen the file in another ("the next process"),
    /// and the replay equals the stored snapshot marked as coming from the store with its age.
    @Test func replayAfterRestartEqualsTheStoredSnapshotWithItsAge() throws {
        try Support.withTemporaryDirectory { dir in
            let today = try Support.fixture(.today)
            let tomorrow = try Support.fixture(.tomorrow)
            do {
                var first = try openStage(dir)
                #expect(Support.replay(&first) == [])  // nothing stored yet
                _ = Support.run(&first, Support.snapshotText(.today, today, fetchedAt: Self.fetchedAt))
                _ = Support.run(&first, Support.snapshotText(.tomorrow, tomorrow, fetchedAt: Self.fetchedAt + 10))
                try first.store.close()
            }
            var restarted = try openStage(dir, now: Self.fetchedAt + 3_600)
            let replay = Support.replay(&restarted)
            let expected = Support.snapshotText(.today, today, fetchedAt: Self.fetchedAt, source: .store, ageSeconds: 3_600)
                + Support.snapshotText(.tomorrow, tomorrow, fetchedAt: Self.fetchedAt + 10, source: .store, ageSeconds: 3_590)
            #expect(replay == expected.split(separator: "\n").map(String.init))
            #expect(replay.count == today.count + tomorrow.count + 2)
            let end = try SnapshotEnd(from: JSONObject(parsing: replay[today.count]))
            #expect(end == SnapshotEnd(day: .today, snapshot: OnXFeed.snapshotID(day: .today, stations: today), count: 181,
                                       source: .store, fetchedAt: Self.fetchedAt, ageSeconds: 3_600))
        }
    }

    /// On the bus the persister receives its own replays: they must change nothing and say nothing.
    @Test func ownReplayComingBackIsANoOp() throws {
        try Support.withTemporaryDirectory { dir in
            let today = try Support.fixture(.today)
            var stage = try openStage(dir)
            _ = Support.run(&stage, Support.snapshotText(.today, today, fetchedAt: Self.fetchedAt))
            let before = try #require(try stage.store.latest(day: .today))
            let replay = Support.replay(&stage)
            #expect(Support.run(&stage, replay.joined(separator: "\n")) == [])
            #expect(try stage.store.latest(day: .today) == before)
            #expect(try stage.store.snapshots(day: .today).count == 1)
            #expect(try stage.store.stationRowCount() == today.count)
        }
    }

    /// The feed goes A, B, A: the second A is recognised by id (not assembled or written again),
    /// yet becomes the latest, since it is the current data.
    @Test func snapshotFetchedAgainBecomesTheLatestWithoutBeingRewritten() throws {
        try Support.withTemporaryDirectory { dir in
            let a = try Support.fixture(.today)
            let b = Support.variant(a, step: 1)
            var stage = try openStage(dir)
            #expect(Support.run(&stage, Support.snapshotText(.today, a, fetchedAt: 100)) == [])
            #expect(Support.run(&stage, Support.snapshotText(.today, b, fetchedAt: 200)) == [])
            #expect(Support.run(&stage, Support.snapshotText(.today, a, fetchedAt: 300)) == [])
            let latest = try #require(try stage.store.latest(day: .today))
            #expect(latest.id == OnXFeed.snapshotID(day: .today, stations: a))
            #expect(latest.fetchedAt == 300)
            #expect(try stage.store.stationRowCount() == 2 * a.count)
        }
    }

    @Test func resyncWithoutClientReplaysAndWithClientIsIgnored() throws {
        try Support.withTemporaryDirectory { dir in
            let today = try Support.fixture(.today)
            var stage = try openStage(dir)
            _ = Support.run(&stage, Support.snapshotText(.today, today, fetchedAt: Self.fetchedAt))
            let replay = Support.run(&stage, #"{"type":"resync","reason":"filter started"}"#)
            #expect(replay == Support.snapshotText(.today, today, fetchedAt: Self.fetchedAt, source: .store)
                .split(separator: "\n").map(String.init))
            #expect(Support.run(&stage, #"{"type":"resync","client":"alice","reason":"gap"}"#) == [])
        }
    }

    @Test func unknownTypesPassThroughUnchanged() throws {
        try Support.withTemporaryDirectory { dir in
            var stage = try openStage(dir)
            let lines = [
                #"{"type":"viewport","client":"alice","center":{"latitude":40.9,"longitude":-108},"span":{"latitudeDelta":25,"longitudeDelta":20}}"#,
                #"{"type":"status","feed":"today","state":"ok"}"#,
                #"{"type":"error","stage":"fetch","message":"HTTP 500","excerpt":""}"#,
                #"{"type":"something-new","x":[1,2,{"y":null}]}"#,
            ]
            #expect(Support.run(&stage, lines.joined(separator: "\n")) == lines)
        }
    }

    /// Each bad line gives exactly one error, and the good snapshot around them is still stored.
    @Test func eachBadLineGivesOneErrorAndGoodLinesStillCount() throws {
        try Support.withTemporaryDirectory { dir in
            let today = try Support.fixture(.today)
            var stage = try openStage(dir)
            let bad = [
                "not json",
                #"{"type":"station""#,
                "[1,2,3]",
                #"{"day":"today"}"#,
                #"{"type":42}"#,
                #"{"type":"station","day":"today","snapshot":"s","seq":0,"id":"X","name":"","latitude":91,"longitude":0}"#,
                #"{"type":"station","day":"yesterday","snapshot":"s","seq":0,"id":"X","latitude":1,"longitude":0}"#,
                #"{"type":"station","day":"today","snapshot":"s","seq":-1,"id":"X","latitude":1,"longitude":0}"#,
                #"{"type":"snapshot","day":"today","snapshot":"s","count":"many"}"#,
                #"{"type":"resync","client":7}"#,
                #"{"type":"station","type":"snapshot"}"#,
            ]
            var input = Support.snapshotText(.today, today, fetchedAt: Self.fetchedAt).split(separator: "\n").map(String.init)
            for (k, line) in bad.enumerated() { input.insert(line, at: 3 + 7 * k) }
            let output = Support.run(&stage, input.joined(separator: "\n"))
            #expect(output.count == bad.count)
            #expect(output.allSatisfy { Support.type($0) == "error" && $0.contains(#""stage":"persist""#) })
            #expect(try stage.store.latest(day: .today)?.stations == today)
        }
    }

    @Test func endMarkerWithoutFetchTimeIsAsFreshAsItsArrival() throws {
        try Support.withTemporaryDirectory { dir in
            var stage = try openStage(dir, now: 1_234)
            let station = #"{"type":"station","day":"today","snapshot":"today-1","seq":0,"id":"A","name":"a","latitude":1,"longitude":2}"#
            let end = #"{"type":"snapshot","day":"today","snapshot":"today-1","count":1}"#
            #expect(Support.run(&stage, station + "\n" + end) == [])
            #expect(try stage.store.latest(day: .today)?.fetchedAt == 1_234)
        }
    }
}
