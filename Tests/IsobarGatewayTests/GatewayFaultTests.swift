#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// Records what a bus client of its own sees (topics and lines, with arrival times), for tests that
/// watch the bus beside a pipeline.
final class BusRecorder: @unchecked Sendable {
    // @unchecked: `seen` is guarded by `condition`.
    struct Seen { var topic: String; var line: String; var at: Date }
    let bus: BusClient
    private let condition = NSCondition()
    private var seen: [Seen] = []

    init(pub: String, sub: String, topics: [String]) throws {
        bus = try BusClient(endpoints: BrokerEndpoints(frontend: pub, backend: sub), topics: topics)
        bus.start { [condition] topic, payload in
            let line = String(decoding: payload, as: UTF8.self)
            condition.lock()
            self.seen.append(Seen(topic: topic, line: line, at: Date()))
            condition.broadcast()
            condition.unlock()
        }
    }

    deinit { bus.close() }

    var count: Int { condition.withLock { seen.count } }

    func entries(from: Int = 0) -> [Seen] { condition.withLock { Array(seen[min(from, seen.count)...]) } }

    /// The index of the first entry at or after `from` whose topic starts with `prefix` and that
    /// matches, waiting up to `timeout` seconds.
    func waitFor(prefix: String, from: Int = 0, timeout: Double, where match: (String) -> Bool = { _ in true }) -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        var index = from
        while true {
            while index < seen.count {
                if seen[index].topic.hasPrefix(prefix) && match(seen[index].line) { return index }
                index += 1
            }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    static func object(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    /// Whether the filter and the gateway agree on the gateway's clients: a tally at or after
    /// `from` that asks for no resend and carries the digest and count of the lease just before it.
    func agreement(from: Int) -> Date? {
        let all = entries()
        var lease: [String: Any]?
        for (index, entry) in all.enumerated() {
            if entry.topic == "lease" { lease = Self.object(entry.line); continue }
            guard index >= from, entry.topic == "tally", let lease else { continue }
            let tally = Self.object(entry.line)
            if tally["resend"] as? Bool == false, tally["digest"] as? String == lease["digest"] as? String,
               (tally["clients"] as? NSNumber)?.intValue == (lease["clients"] as? NSNumber)?.intValue {
                return entry.at
            }
        }
        return nil
    }
}

extension GatewayProcessTests {
    /// kill -9 of the filter, the formatter and the broker under an open WebSocket through
    /// `isobar up --sample --gateway`: the client converges again (after a pan while the process was
    /// down, or idle), versions only go up, and an idle client causes no per-client bus traffic.
    @Suite struct GatewayFaultTests {
        /// What is killed: the filter or the formatter (`isobar filter --bus`, `isobar format --bus`,
        /// each on the bus in process: `up` restarts it; for the formatter what the filter sent
        /// meanwhile is lost, so the lease/tally repair is what brings it back), or the broker.
        enum Victim: String { case filter, format, broker }

        /// The pid of the process `up` (pid `up`) runs for `victim`: the broker, or the process that
        /// runs the stage (itself on the bus, or a plug's command under `--plugs`).
        static func pid(of victim: Victim, under up: pid_t) -> pid_t? {
            ProcessHarness.services(under: up)[victim.rawValue].flatMap(ProcessHarness.stagePID(ofService:))
        }

        struct Outcome: CustomStringConvertible {
            var victim: Victim
            var panned: Bool
            var back: Double?  // seconds from the kill until the new process existed
            var setRight: Double?  // ... until the client last came to hold the brute-force set (0: never wrong)
            var lastFrame: Double?  // ... until the last annotations frame after the kill (the repair)
            var agreed: Double?  // ... until a tally agreed with the gateway's lease
            var wrongFrames = 0  // annotations frames after which the set was not the brute-force set

            var description: String {
                func f(_ x: Double?) -> String { x.map { String(format: "%.2f s", $0) } ?? "never" }
                return "\(victim.rawValue) \(panned ? "pan" : "idle"): back \(f(back)), set right \(f(setRight)), last frame \(f(lastFrame)), lease/tally agree \(f(agreed)), wrong frames \(wrongFrames)"
            }
        }

        @Test func killFilterFormatterBrokerUnderAnOpenWebSocket() async throws {
            let pipeline = try await GatewayPipelineTests.Pipeline.start()
            try await pipeline.waitUntilHealthy()
            let today = try Reference.records("today")

            let recorder = try BusRecorder(pub: pipeline.pub, sub: pipeline.sub, topics: ["viewport/", "lease", "tally"])
            // Handshake: our subscriptions are in place once a lease and its tally arrive.
            try #require(recorder.waitFor(prefix: "tally", timeout: 10) != nil, "no tally on the test's bus client")

            let client = WSTestClient(port: pipeline.port, query: "?client=faulty")
            var held = HeldAnnotations()
            var view = (lat: 40.924, lon: -108.0955, dlat: 25.0, dlon: 20.0)
            var expected = Reference.visible(today, lat: view.lat, lon: view.lon, dlat: view.dlat, dlon: view.dlon)
            client.send(Reference.viewport(lat: view.lat, lon: view.lon, dlat: view.dlat, dlon: view.dlon))
            let deadline = Date().addingTimeInterval(10)
            while Set(held.titles.keys) != expected, let frame = client.next(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
                held.apply(frame)
            }
            try #require(Set(held.titles.keys) == expected, "initial set: holds \(held.titles.count) of \(expected.count)")

            // Pans that each change the set (a panned-to view differs from the one before).
            let pans = [(35.0, -100.0, 10.0, 14.0), (45.0, -115.0, 12.0, 16.0), (38.0, -90.0, 15.0, 20.0)]
            var outcomes: [Outcome] = []
            var panIndex = 0
            for victim in [Victim.filter, .format, .broker] {
                for panned in [true, false] {
                    // Settle first: the pipeline agrees on this client, so what follows is the fault's doing.
                    let settle = recorder.count
                    _ = recorder.waitFor(prefix: "tally", from: settle, timeout: 3)
                    guard let old = Self.pid(of: victim, under: pipeline.process.pid) else {
                        Issue.record("no \(victim) process under up: \(pipeline.process.stderrText.suffix(3000))")
                        return
                    }
                    let mark = recorder.count
                    let killedAt = Date()
                    kill(old, SIGKILL)
                    var outcome = Outcome(victim: victim, panned: panned)
                    if panned {
                        let p = pans[panIndex % pans.count]
                        panIndex += 1
                        view = (p.0, p.1, p.2, p.3)
                        let next = Reference.visible(today, lat: view.lat, lon: view.lon, dlat: view.dlat, dlon: view.dlon)
                        #expect(next != expected, "pan \(panIndex) does not change the set")
                        expected = next
                        client.send(Reference.viewport(lat: view.lat, lon: view.lon, dlat: view.dlat, dlon: view.dlon))
                    } else {
                        outcome.setRight = 0
                    }
                    // Watch until the process is back, the client holds the brute-force set, and
                    // then a tally agrees with the lease (both sides hold the same versions).
                    let limit = killedAt.addingTimeInterval(60)
                    var rightAt: Date? = panned ? nil : killedAt
                    while Date() < limit {
                        if outcome.back == nil, let new = Self.pid(of: victim, under: pipeline.process.pid), new != old {
                            outcome.back = Date().timeIntervalSince(killedAt)
                        }
                        if let frame = client.next(timeout: 0.02) {
                            if held.apply(frame) {
                                outcome.lastFrame = Date().timeIntervalSince(killedAt)
                                if Set(held.titles.keys) == expected {
                                    if rightAt == nil { rightAt = Date() }
                                } else {
                                    outcome.wrongFrames += 1
                                    rightAt = nil
                                }
                            }
                            continue
                        }
                        if outcome.back != nil, let rightAt, let agreed = recorder.agreement(from: mark), agreed > rightAt,
                           Date().timeIntervalSince(agreed) > 0.1 {
                            outcome.agreed = agreed.timeIntervalSince(killedAt)
                            break
                        }
                    }
                    if let rightAt, panned { outcome.setRight = rightAt.timeIntervalSince(killedAt) }
                    outcomes.append(outcome)
                    print("fault: \(outcome)")

                    #expect(outcome.back != nil, "\(victim) never came back")
                    #expect(Set(held.titles.keys) == expected, "\(outcome): holds \(held.titles.count), expected \(expected.count)")
                    if let back = outcome.back, let right = outcome.setRight {
                        #expect(right - back <= 30.0, "\(outcome): set right more than 30 s after the process was back")
                    } else {
                        Issue.record("\(outcome): never converged\n\(pipeline.process.stderrText.suffix(4000))")
                    }
                    if let back = outcome.back, let agreed = outcome.agreed {
                        // The lease goes once a second; the tally asks for a resend after 0.5 s quiet
                        // (typically within 4 s; the bound is loose so a loaded machine stays green).
                        #expect(agreed - back <= 30.0, "\(outcome): lease and tally agreed late")
                    } else {
                        Issue.record("\(outcome): the filter's tally never agreed with the gateway's lease")
                    }
                    if !panned { #expect(outcome.wrongFrames == 0, "\(outcome): an idle client's set went wrong") }
                    #expect(held.gaps == 0 && held.backwards == 0, "versions \(held.versions)")

                    // Idle: 3 s with no per-client messages on the bus, only leases and tallies.
                    let idle = recorder.count
                    while let frame = client.next(timeout: 3) {
                        held.apply(frame)
                        #expect(Set(held.titles.keys) == expected, "a late frame broke the set: \(frame)")
                    }
                    let window = recorder.entries(from: idle)
                    let viewports = window.filter { $0.topic.hasPrefix("viewport/") }
                    #expect(viewports.isEmpty, "\(outcome): \(viewports.count) viewports while idle: \(viewports.map(\.line))")
                    #expect(window.filter { $0.topic == "lease" }.count >= 1, "leases while idle: \(window.count)")
                    #expect(window.filter { $0.topic == "tally" }.count >= 1, "tallies while idle: \(window.count)")
                }
            }
            print("fault: versions \(held.versions)")
            await pipeline.stop()
        }
    }
}
