#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// Feed faults through the whole pipeline: `isobar up` polling a sample feed that this test runs
/// (and restarts with `--fault`), with clients on the bus. After a good fetch, each fault must
/// produce a `failed` status that says what failed, no snapshot other than the last good one on the
/// bus (nothing partial), and the last good data still served: the attached client keeps it and a
/// client that joins during the fault gets it. The fetcher itself against every fault mode is
/// covered in IsobarNetTests (see RELIABILITY.md).
@Suite("feed faults through the pipeline: the last good data is still served", .serialized, .processSlot)
struct FeedFaultPipelineTests {
    /// Collects `status` and snapshot traffic from the bus.
    final class Watcher: @unchecked Sendable {
        // @unchecked: the arrays are only touched under `condition`.
        let condition = NSCondition()
        var statuses: [[String: Any]] = []
        var snapshotIDs: [String: Int] = [:]
        var badCounts: [String] = []
        let bus: IsobarHost.BusClient

        init(endpoints: BrokerEndpoints) throws {
            bus = try IsobarHost.BusClient(endpoints: endpoints, topics: ["status", "snapshot", "station"])
            bus.start { [weak self] topic, payload in self?.receive(topic, payload) }
        }

        deinit { bus.close() }

        private func receive(_ topic: String, _ payload: [UInt8]) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return }
            condition.lock()
            defer { condition.broadcast(); condition.unlock() }
            switch topic {
            case "status": statuses.append(object)
            case "snapshot":
                let id = object["snapshot"] as? String ?? "?"
                snapshotIDs[id, default: 0] += 1
                if object["count"] as? Int != 181 { badCounts.append("\(id): count \(object["count"] ?? "nil")") }
            default:
                let id = object["snapshot"] as? String ?? "?"
                snapshotIDs["station:" + id, default: 0] += 0
            }
        }

        /// Waits for a today status after `index` matching `predicate`.
        func waitForStatus(after index: Int, timeout: Double, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(timeout)
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let found = statuses.dropFirst(index).first(where: { $0["day"] as? String == "today" && predicate($0) }) { return found }
                if !condition.wait(until: deadline) { return nil }
            }
        }

        /// Waits until snapshot headers of `count` distinct snapshots have been seen.
        func waitForSnapshots(_ count: Int, timeout: Double) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            condition.lock()
            defer { condition.unlock() }
            while snapshotIDs.keys.filter({ !$0.hasPrefix("station:") }).count < count {
                if !condition.wait(until: deadline) { return false }
            }
            return true
        }

        var statusCount: Int { condition.lock(); defer { condition.unlock() }; return statuses.count }
        var ids: Set<String> { condition.lock(); defer { condition.unlock() }; return Set(snapshotIDs.keys) }
    }

    /// `isobar sample-feed` on a fixed port with drift off (values are the fixture's), optionally with a fault.
    static func startFeed(port: UInt16, fault: String?) async throws -> ProcessHarness {
        let feed = try await ProcessHarness.isobar(["sample-feed", "--port", String(port), "--drift", "off",
                                              "--fixtures", ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path]
                                             + (fault.map { ["--fault", $0] } ?? []))
        let deadline = ContinuousClock.now + .seconds(20)
        // Ready when the port accepts connections.
        while ContinuousClock.now < deadline {
            if canConnect(port) { return feed }
            if await feed.waitForExit(timeout: .milliseconds(20)) != nil { break }
        }
        throw ProcessHarness.LaunchError(description: "sample feed did not start on \(port):\n\(feed.stderrText)")
    }

    static func canConnect(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func stopFeed(_ feed: ProcessHarness) async {
        feed.signal(SIGTERM)
        if await feed.waitForExit(timeout: .seconds(5)) == nil { feed.signal(SIGKILL); _ = await feed.waitForExit(timeout: .seconds(5)) }
    }

    /// (fault, text the failed status's reason must contain); nil fault = the feed is down (connection refused).
    static let faults: [(String?, String)] = [
        (nil, "refused"),
        ("500", "HTTP 500"),
        ("404", "HTTP 404"),
        ("truncate", "truncated"),
        ("drop", "closed the connection"),
        ("notjson", "not a JSON array"),
        ("empty", "empty array"),
        ("redirectloop", "too many redirects"),
        ("huge", "limit"),
    ]

    @Test("each feed fault after a good fetch: a failed status naming it, no other snapshot, the last good data still served",
          .timeLimit(.minutes(5)))
    func lastGoodDataIsServed() async throws {
        let port = ProcessHarness.freeTCPPort()
        var feed = try await Self.startFeed(port: port, fault: nil)
        let base = "http://127.0.0.1:\(port)"
        let pipeline = try await UpPipeline.start(["--today", base + "/today.json", "--tomorrow", base + "/tomorrow.json", "--interval", "1",
                                              // Retries within 4 s: with the default 300 s cap, a slow run piles up
                                              // enough failures for a retry to wait past the test's 30 s.
                                              "--backoff-cap", "4"])
        let watcher = try Watcher(endpoints: pipeline.endpoints)
        let today = try Reference.records("today")
        let titles = Dictionary(uniqueKeysWithValues: today.map { ($0.id, Reference.temperatureTitle($0)) })
        let i = (lat: 40.924, lon: -108.0955, dlat: 25.0, dlon: 20.0)
        let viewer = try Viewer("steady", endpoints: pipeline.endpoints, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        let want = viewer.expected(today)
        try #require(viewer.waitFor(want, titles: titles, timeout: .seconds(60)) != nil, "no first convergence\n\(pipeline.process.stderrText.suffix(3000))")
        let good = viewer.session.snapshot().annotations.fetchedAt
        // Today's and tomorrow's snapshots are fetched one after the other: take the good set only
        // once both have crossed the bus (the client converging on today says nothing of tomorrow).
        try #require(watcher.waitForSnapshots(2, timeout: 30), "tomorrow's snapshot never crossed the bus: \(watcher.ids)")
        let goodIDs = watcher.ids

        var failures: [String] = []
        for (round, (fault, reason)) in Self.faults.enumerated() {
            await Self.stopFeed(feed)
            let mark = watcher.statusCount
            if let fault { feed = try await Self.startFeed(port: port, fault: fault) }
            // (Between two feeds the port is closed for a moment: a "refused" failure may come first.)
            guard let status = watcher.waitForStatus(after: mark, timeout: 30, {
                $0["state"] as? String == "failed" && ($0["reason"] as? String ?? "").contains(reason)
            }) else {
                failures.append("\(fault ?? "down"): no failed status mentioning \"\(reason)\" within 30 s")
                continue
            }
            if (status["url"] as? String)?.hasPrefix(base) != true { failures.append("\(fault ?? "down"): status without the url: \(status)") }
            // The attached client still holds the last good data, and a client joining now gets it.
            let items = viewer.items
            if Set(items.keys) != want || viewer.session.snapshot().annotations.fetchedAt != good {
                failures.append("\(fault ?? "down"): the attached client lost the last good data")
            }
            let late = try Viewer("late\(round)", endpoints: pipeline.endpoints, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
            if late.waitFor(want, titles: titles, timeout: .seconds(10)) == nil {
                failures.append("\(fault ?? "down"): a client joining during the fault did not get the last good data")
            }
            // The good feed again: the next status is ok/unchanged (and the backoff starts over).
            await Self.stopFeed(feed)
            let again = watcher.statusCount
            feed = try await Self.startFeed(port: port, fault: nil)
            if watcher.waitForStatus(after: again, timeout: 30, { $0["state"] as? String != "failed" }) == nil {
                failures.append("\(fault ?? "down"): no recovery status after the feed came back")
            }
        }
        // Nothing but the good snapshots ever travelled: no partial, no other content.
        let ids = watcher.ids.filter { !$0.hasPrefix("station:") }
        #expect(ids == goodIDs.filter { !$0.hasPrefix("station:") } || ids.isSubset(of: goodIDs), "snapshots seen: \(ids), good: \(goodIDs)")
        #expect(ids.count == 2, "exactly today's and tomorrow's fixture snapshots: \(ids)")
        let stationSnapshots = Set(watcher.ids.filter { $0.hasPrefix("station:") }.map { String($0.dropFirst(8)) })
        #expect(stationSnapshots.isSubset(of: ids), "station lines of another snapshot: \(stationSnapshots)")
        let (badCounts, failed) = watcher.condition.withLock {
            (watcher.badCounts, watcher.statuses.filter { $0["state"] as? String == "failed" }.count)
        }
        #expect(badCounts.isEmpty, "\(badCounts)")
        print("reliability: feed faults through the pipeline: \(Self.faults.count) faults, \(failed) failed statuses, snapshots seen \(ids.sorted())")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(pipeline.process.stderrText.suffix(4000))")
        await pipeline.stop()
        await Self.stopFeed(feed)
    }
}
