#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// Slow and late subscribers, and consumers that see a gap: each converges (resync), and the
/// broker's and the filter's memory stays bounded meanwhile.
@Suite("slow and late subscribers, sequence gaps", .serialized, .processSlot)
struct SlowSubscriberTests {
    static let initial = (lat: 40.924, lon: -108.0955, dlat: 25.0, dlon: 20.0)

    /// Applies an `isobar attach --plain` process's stdout to an `AnnotationSet`.
    final class AttachOutput {
        var set = AnnotationSet()
        var applied = 0
        var gaps = 0
        func drain(_ process: ProcessHarness, timeout: Duration) async {
            while let line = await process.nextStdoutLine(timeout: timeout) {
                guard let object = try? JSONObject(parsing: line),
                      let type = object.field("type").flatMap(object.string), type == "annotations" else { continue }
                if case .gap = (try? set.apply(object)) ?? .applied { gaps += 1 }
                applied += 1
            }
        }
        var titles: [String: String] { self.set.items.mapValues(\.title) }
    }

    @Test("a client stopped (SIGSTOP) for 10 s while the feed drifts converges after SIGCONT; broker and filter memory stay bounded",
          .timeLimit(.minutes(3)))
    func stoppedClientResumes() async throws {
        // Drift every 2 s, polled every 2 s: values change several times while the client is stopped.
        let pipeline = try await UpPipeline.start(["--sample", "--sample-period", "2"])
        let i = Self.initial
        let env = ["ISOBAR_PUB": pipeline.endpoints.frontend, "ISOBAR_SUB": pipeline.endpoints.backend]
        let attach = try await ProcessHarness.isobar(["attach", "--client", "sleepy", "--plain", "--viewport", "\(i.lat),\(i.lon),\(i.dlat),\(i.dlon)"], environment: env)
        defer { attach.closeStdin(); attach.signal(SIGKILL) }
        // A reference client that never stops, on the same viewport.
        let reference = try Viewer("awake", endpoints: pipeline.endpoints, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        let expected = Reference.visible(try Reference.records("today"), lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        let output = AttachOutput()
        let start = ContinuousClock.now
        while Set(output.set.items.keys) != expected && ContinuousClock.now - start < .seconds(60) { await output.drain(attach, timeout: .milliseconds(100)) }
        try #require(Set(output.set.items.keys) == expected, "attach never converged\n\(attach.stderrText)\n\(pipeline.process.stderrText.suffix(3000))")

        let services = pipeline.services()
        let watched: [(String, pid_t)] = [("broker", services["broker"]), ("filter", services["filter"].flatMap(pipeline.stagePID)),
                                          ("format", services["format"].flatMap(pipeline.stagePID))].compactMap { name, pid in pid.map { (name, $0) } }
        var rss: [String: [Int]] = [:]
        func sample() { for (name, pid) in watched { rss[name, default: []].append(CorpusRun.rssKB(pid)) } }
        sample()
        let titlesBefore = output.titles
        attach.signal(SIGSTOP)
        for _ in 0..<10 {
            // While it sleeps, the other client pans, so the filter and formatter keep working.
            try reference.pan(i.lat + Double.random(in: -3...3), i.lon + Double.random(in: -3...3), i.dlat, i.dlon)
            try? await Task.sleep(for: .seconds(1))  // the 10 s the client does not read (not a synchronisation)
            sample()
        }
        try reference.pan(i.lat, i.lon, i.dlat, i.dlon)
        attach.signal(SIGCONT)

        // Converged: the woken client shows what the never-stopped client shows, on the same snapshot.
        var converged = false
        let deadline = ContinuousClock.now + .seconds(60)
        while !converged && ContinuousClock.now < deadline {
            await output.drain(attach, timeout: .milliseconds(100))
            let mine = output.set, theirs = reference.session.snapshot().annotations
            converged = Set(mine.items.keys) == expected && mine.items.mapValues(\.title) == theirs.items.mapValues(\.title)
                && mine.fetchedAt == theirs.fetchedAt && !mine.broken
        }
        #expect(converged, "the resumed client did not converge (applied \(output.applied), gaps \(output.gaps))\n\(attach.stderrText.suffix(2000))")
        #expect(output.titles != titlesBefore, "the feed did not drift while the client slept")
        for (name, samples) in rss {
            let growth = (samples.max() ?? 0) - (samples.first ?? 0)
            print("reliability: slow subscriber: \(name) VmRSS \(samples.first ?? 0) -> max \(samples.max() ?? 0) kB")
            #expect(samples.allSatisfy { $0 > 0 } && growth < 50 * 1024, "\(name) VmRSS grew \(growth) kB: \(samples)")
        }
        await pipeline.stop()
    }

    @Test("a client that joins after the data was published converges (an attach process and a bus client)")
    func lateJoiner() async throws {
        let pipeline = try await UpPipeline.start()
        let today = try Reference.records("today")
        let titles = Dictionary(uniqueKeysWithValues: today.map { ($0.id, Reference.temperatureTitle($0)) })
        let i = Self.initial
        let early = try Viewer("early", endpoints: pipeline.endpoints, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        try #require(early.waitFor(early.expected(today), titles: titles, timeout: .seconds(60)) != nil)
        // Everything has been published and nothing new will come (the epoch is an hour long).
        let late = try Viewer("late", endpoints: pipeline.endpoints, lat: 47, lon: -120, dlat: 6, dlon: 8)
        let took = late.waitFor(late.expected(today), titles: titles, timeout: .seconds(60))
        #expect(took != nil, "the late bus client did not converge")
        let env = ["ISOBAR_PUB": pipeline.endpoints.frontend, "ISOBAR_SUB": pipeline.endpoints.backend]
        let attach = try await ProcessHarness.isobar(["attach", "--client", "later", "--plain", "--viewport", "35,-100,10,10"], environment: env)
        defer { attach.closeStdin(); attach.signal(SIGKILL) }
        let output = AttachOutput()
        let want = Reference.visible(today, lat: 35, lon: -100, dlat: 10, dlon: 10)
        let start = ContinuousClock.now
        while Set(output.set.items.keys) != want && ContinuousClock.now - start < .seconds(60) { await output.drain(attach, timeout: .milliseconds(100)) }
        #expect(Set(output.set.items.keys) == want && want.allSatisfy { output.titles[$0] == titles[$0] }, "\(attach.stderrText)")
        print("reliability: late joiner: bus client converged in \(took.map(String.init(describing:)) ?? "-"), attach process in \(ContinuousClock.now - start)")
        await pipeline.stop()
    }

    @Test("a station line dropped between fetch and filter: one error and a resync request; the replay completes it")
    func droppedStationInAPipe() async throws {
        let lines = await BadInputCorpusTests.fetchLines()
        let dropped = try #require(lines.firstIndex { $0.contains(#""type":"station","day":"today""#) && $0.contains(#""seq":7,"#) })
        var gappy = lines
        gappy.remove(at: dropped)
        let i = Self.initial
        let filter = try await ProcessHarness.isobar(["filter", "--viewport", "\(i.lat),\(i.lon),\(i.dlat),\(i.dlon)"])
        defer { filter.signal(SIGKILL) }
        try filter.write(gappy.map { $0 + "\n" }.joined())
        var seen: [String] = []
        func readUntil(_ predicate: (String) -> Bool) async -> Bool {
            while let line = await filter.nextStdoutLine(timeout: .seconds(20)) {
                seen.append(line)
                if predicate(line) { return true }
            }
            return false
        }
        #expect(await readUntil { $0.contains(#""type":"resync""#) }, "no resync request after the gap: \(seen.suffix(5))")
        let errors = seen.filter { $0.contains(#""type":"error""#) }
        #expect(errors.count == 1 && errors.first?.contains("incomplete") == true, "\(errors)")
        // The answer to the resync: the publisher replays the whole snapshot.
        let today = lines.filter { $0.contains(#""day":"today""#) }
        try filter.write(today.map { $0 + "\n" }.joined())
        filter.closeStdin()
        while let line = await filter.nextStdoutLine(timeout: .seconds(20)) { seen.append(line) }
        #expect(await filter.waitForExit(timeout: .seconds(10)) == .exited(0))
        // Apply the visible sets in order (full replaces, then remove, then upsert).
        var ids = Set<String>()
        for line in seen where line.contains(#""type":"visible""#) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["full"] as? Bool == true { ids = [] }
            ids.subtract(object["remove"] as? [String] ?? [])
            ids.formUnion((object["upsert"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        }
        let expected = Reference.visible(try Reference.records("today"), lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        #expect(ids == expected, "\(ids.count) of \(expected.count) after the replay")
        #expect(seen.filter { $0.contains(#""type":"error""#) }.count == 1)
    }

    @Test("a client that loses an annotations message sees the version gap, asks for a resync and converges")
    func clientVersionGap() async throws {
        let pipeline = try await UpPipeline.start()
        let today = try Reference.records("today")
        let bus = try IsobarHost.BusClient(endpoints: pipeline.endpoints, topics: ["annotations/gappy"])
        defer { bus.close() }
        final class State: @unchecked Sendable {
            // @unchecked: only touched under `condition`.
            let condition = NSCondition()
            var set = AnnotationSet()
            var received = 0
            var gaps = 0
            var dropped = false
        }
        let state = State()
        bus.start { topic, payload in
            guard topic == "annotations/gappy", let object = try? JSONObject(storage: payload) else { return }
            state.condition.lock()
            defer { state.condition.broadcast(); state.condition.unlock() }
            state.received += 1
            // Lose the first incremental message, as a full queue under pressure would.
            if !state.dropped && (try? object.optionalBool("full")) == false {
                state.dropped = true
                return
            }
            if case .gap = (try? state.set.apply(object)) ?? .applied {
                state.gaps += 1
                bus.publish(#"{"type":"resync","client":"gappy","reason":"version gap"}"#)
            }
        }
        func viewport(_ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double) {
            bus.publish(#"{"type":"viewport","client":"gappy","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)}}"#)
        }
        func wait(_ want: Set<String>, timeout: Double, resend: (() -> Void)? = nil) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            var next = Date()
            state.condition.lock()
            defer { state.condition.unlock() }
            while Set(state.set.items.keys) != want || state.set.broken {
                if Date() >= deadline { return false }
                if let resend, Date() >= next {
                    state.condition.unlock(); resend(); state.condition.lock()
                    next = Date().addingTimeInterval(0.25)
                }
                _ = state.condition.wait(until: min(deadline, Date().addingTimeInterval(0.05)))
            }
            return true
        }
        let i = Self.initial
        #expect(wait(Reference.visible(today, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon), timeout: 60) { viewport(i.lat, i.lon, i.dlat, i.dlon) })
        // Pan: the first diff is "lost"; the second reveals the gap; the resync answer repairs it.
        viewport(42, -104, 20, 20)
        viewport(43, -103, 20, 24)
        #expect(wait(Reference.visible(today, lat: 43, lon: -103, dlat: 20, dlon: 24), timeout: 30), "no convergence after the gap")
        let (dropped, gaps) = state.condition.withLock { (state.dropped, state.gaps) }
        #expect(dropped && gaps >= 1, "dropped \(dropped), gaps \(gaps)")
        await pipeline.stop()
    }
}
