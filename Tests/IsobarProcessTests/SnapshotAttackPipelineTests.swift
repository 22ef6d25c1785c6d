#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// Issue 27, item 2, as the attacker did it: `isobar up` running, a client holding today's set,
/// and a bus publisher injecting a forged 1-station snapshot fetched 5 s "in the future", the real
/// snapshot's end marker dated 10 years ahead, and a lone end marker with `count:0`. None of them
/// changes what the client holds, and persist's replay is still the real snapshot (the two agree).
@Suite("forged and empty snapshots injected into a running pipeline", .serialized, .processSlot)
struct SnapshotAttackPipelineTests {
    /// Collects `status` and `snapshot` lines from the bus.
    final class Watcher: @unchecked Sendable {
        // @unchecked: `lines` is only touched under `condition`.
        let condition = NSCondition()
        var lines: [[String: Any]] = []
        let bus: IsobarHost.BusClient

        init(endpoints: BrokerEndpoints) throws {
            bus = try IsobarHost.BusClient(endpoints: endpoints, topics: ["status", "snapshot", "error"])
            bus.start { [weak self] _, payload in
                guard let self, let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return }
                condition.lock()
                lines.append(object)
                condition.broadcast()
                condition.unlock()
            }
        }

        deinit { bus.close() }

        /// Publishes `inject` every half second until a line satisfies `predicate` (the slow joiner:
        /// the first ones may go nowhere), for at most `timeout` seconds.
        func publish(_ inject: [String], until predicate: ([String: Any]) -> Bool, timeout: Double) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(timeout)
            condition.lock()
            let mark = lines.count
            condition.unlock()
            while Date() < deadline {
                for line in inject { bus.publish(line) }
                condition.lock()
                _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.5)))
                let hit = lines.dropFirst(mark).first(where: predicate)
                condition.unlock()
                if let hit { return hit }
            }
            return nil
        }
    }

    @Test("a forged future snapshot and a lone count:0 end marker change nothing a client holds", .timeLimit(.minutes(3)))
    func forgedSnapshotsAreHeldOrRefused() async throws {
        let pipeline = try await UpPipeline.start()
        let today = try Reference.records("today")
        let titles = Dictionary(uniqueKeysWithValues: today.map { ($0.id, Reference.temperatureTitle($0)) })
        let viewer = try Viewer("victim", endpoints: pipeline.endpoints, lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20)
        try #require(viewer.waitFor(viewer.expected(today), titles: titles, timeout: .seconds(60)) != nil,
                     "no first convergence\n\(pipeline.process.stderrText.suffix(3000))")
        let good = viewer.session.snapshot().annotations
        let watcher = try Watcher(endpoints: pipeline.endpoints)
        let resync = [#"{"type":"resync","reason":"test"}"#]
        let stored = { (line: [String: Any]) in line["source"] as? String == "store" && line["day"] as? String == "today" }
        let before = watcher.publish(resync, until: stored, timeout: 30)
        let goodID = try #require(before?["snapshot"] as? String, "persist never replayed today's snapshot")
        let now = Date().timeIntervalSince1970

        // A forged one-station snapshot, 5 s ahead: held back as implausibly shrunk.
        let forged = [
            #"{"type":"station","day":"today","snapshot":"today-forged","seq":0,"id":"K1D3","name":"FORGED","latitude":40.9,"longitude":-108.1,"temperature":-40}"#,
            #"{"type":"snapshot","day":"today","snapshot":"today-forged","count":1,"source":"feed","fetchedAt":\#(now + 5)}"#,
        ]
        let held = watcher.publish(forged, until: { $0["state"] as? String == "held" && ($0["reason"] as? String ?? "").contains("today-forged") },
                                   timeout: 30)
        #expect(held != nil, "no held status for the forged snapshot\n\(pipeline.process.stderrText.suffix(3000))")
        // The real snapshot's id dated 10 years ahead: refused for its clock (by the filter and persist).
        let pinned = [#"{"type":"snapshot","day":"today","snapshot":"\#(goodID)","count":\#(today.count),"source":"feed","fetchedAt":\#(now + 315_360_000)}"#]
        let refused = watcher.publish(pinned, until: { ($0["message"] as? String ?? "").contains("in the future") }, timeout: 30)
        #expect(refused != nil, "no refusal of the future end marker")
        // A lone end marker with no stations: held back too.
        let empty = [#"{"type":"snapshot","day":"today","snapshot":"today-empty","count":0,"source":"feed","fetchedAt":\#(now)}"#]
        let heldEmpty = watcher.publish(empty, until: { $0["state"] as? String == "held" && ($0["reason"] as? String ?? "").contains("today-empty") },
                                        timeout: 30)
        #expect(heldEmpty != nil, "no held status for the empty snapshot")

        // The client still holds the real set, and a pan made after the injections is answered
        // from the real snapshot (so the filter, which saw them first, still holds it).
        #expect(viewer.session.snapshot().annotations.fetchedAt == good.fetchedAt)
        try viewer.pan(39, -100, 20, 30)
        #expect(viewer.waitFor(viewer.expected(today), titles: titles, timeout: .seconds(20)) != nil, "the pan was not answered from the real snapshot")
        #expect(viewer.session.snapshot().annotations.fetchedAt == good.fetchedAt)
        // Persist replays the real snapshot, as the filter holds it.
        let replay = watcher.publish(resync, until: stored, timeout: 30)
        #expect(replay?["snapshot"] as? String == goodID)
        await pipeline.stop()
    }
}
