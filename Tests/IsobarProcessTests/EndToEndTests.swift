import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// The whole pipeline as a user runs it: `isobar up --sample` (broker, sample feed over real HTTP,
/// fetch, filter, format, persist under plug; real libzmq and SQLite), with clients on the bus.
@Suite(.serialized, .processSlot) struct EndToEndTests {
    struct Pipeline {
        let process: ProcessHarness
        let endpoints: BrokerEndpoints
        let dataDirectory: String

        /// Starts `up` on free ports. The sample feed's drift period is long so values stay the
        /// fixture's (epoch 0) for the test, which makes the reference exact.
        static func start(dataDirectory: String? = nil, extra: [String] = ["--sample"]) async throws -> Pipeline {
            let pub = ProcessHarness.freeTCPPort(), sub = ProcessHarness.freeTCPPort(), http = ProcessHarness.freeTCPPort()
            let endpoints = BrokerEndpoints(frontend: "tcp://127.0.0.1:\(pub)", backend: "tcp://127.0.0.1:\(sub)")
            let data = dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("isobar-e2e-\(UUID().uuidString)").path
            let process = try await ProcessHarness.isobar(
                ["up", "--sample-port", String(http), "--sample-period", "3600", "--data-dir", data, "--no-gateway",
                 "--fixtures", ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path] + extra,
                environment: ["ISOBAR_PUB": endpoints.frontend, "ISOBAR_SUB": endpoints.backend])
            return Pipeline(process: process, endpoints: endpoints, dataDirectory: data)
        }

        func stop() async {
            process.signal(SIGINT)
            _ = await process.waitForExit(timeout: .seconds(30))
        }
    }

    static let initial = (lat: 40.924, lon: -108.0955, dlat: 25.0, dlon: 20.0)

    @Test func initialRegionPansTogglesAndTwoClients() async throws {
        let pipeline = try await Pipeline.start()
        let today = try Reference.records("today")
        let tomorrow = try Reference.records("tomorrow")
        let alice = try TestClient("alice", endpoints: pipeline.endpoints)
        let bob = try TestClient("bob", endpoints: pipeline.endpoints)
        let i = Self.initial

        // The default viewport: exactly the 85 expected stations with the fixture's titles.
        let expected = Reference.visible(today, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        #expect(expected.count == 85)
        let converged = alice.wait(timeout: 30, resend: { alice.viewport(i.lat, i.lon, i.dlat, i.dlon) }) { Set($0.items.keys) == expected }
        #expect(converged, "alice never held the 85 stations")
        let titles = alice.state.items.mapValues(\.title)
        for record in today where expected.contains(record.id) {
            #expect(titles[record.id] == Reference.temperatureTitle(record), "title of \(record.id)")
        }
        #expect(titles["K6V4"] == "")

        // Bob looks elsewhere; each receives only its own updates.
        bob.viewport(47, -120, 6, 8)
        let bobExpected = Reference.visible(today, lat: 47, lon: -120, dlat: 6, dlon: 8)
        #expect(bob.wait(timeout: 10, resend: { bob.viewport(47, -120, 6, 8) }) { Set($0.items.keys) == bobExpected })
        #expect(alice.state.items.count == 85)

        // 200 random pans and zooms: after each, alice converges to the brute-force set.
        var random = SystemRandomNumberGenerator()
        var lat = i.lat, lon = i.lon, dlat = i.dlat, dlon = i.dlon
        var failures = 0
        for step in 0..<200 {
            lat = min(80, max(-80, lat + Double.random(in: -6...6, using: &random)))
            lon += Double.random(in: -8...8, using: &random)
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            if step % 5 == 0 {
                dlat = Double.random(in: 1...60, using: &random)
                dlon = Double.random(in: 1...80, using: &random)
            }
            alice.viewport(lat, lon, dlat, dlon, limit: 1000)
            let want = Reference.visible(today, lat: lat, lon: lon, dlat: dlat, dlon: dlon)
            if !alice.wait(timeout: 30, { Set($0.items.keys) == want }) { failures += 1 }
        }
        #expect(failures == 0)
        #expect(alice.state.set.broken == false)

        // Toggle the day: titles switch to tomorrow's values; cycle the field: wind, precipitation.
        alice.viewport(i.lat, i.lon, i.dlat, i.dlon, day: "tomorrow")
        let tomorrowTitles = Dictionary(uniqueKeysWithValues: tomorrow.filter { expected.contains($0.id) }.map { ($0.id, Reference.temperatureTitle($0)) })
        #expect(alice.wait(timeout: 10) { set in set.day == .tomorrow && set.items.mapValues(\.title) == tomorrowTitles })
        alice.viewport(i.lat, i.lon, i.dlat, i.dlon, day: "tomorrow", field: "wind")
        #expect(alice.wait(timeout: 10) { $0.field == .wind && $0.items["K1D3"]?.title == "12 mph W →" })
        alice.viewport(i.lat, i.lon, i.dlat, i.dlon, day: "tomorrow", field: "precipitation")
        let rain = Dictionary(uniqueKeysWithValues: tomorrow.filter { expected.contains($0.id) }.map { ($0.id, Reference.precipitationTitle($0)) })
        #expect(alice.wait(timeout: 10) { $0.field == .precipitation && $0.items.mapValues(\.title) == rain })

        // A callout for a visible station; it follows the day toggle.
        alice.select("K1D3")
        let deadline = Date().addingTimeInterval(10)
        while alice.state.callouts.isEmpty && Date() < deadline { try? await Task.sleep(for: .seconds(0.05)) }
        #expect(alice.state.callouts.first?["title"] as? String == "PLATTE")
        alice.viewport(i.lat, i.lon, i.dlat, i.dlon, day: "today", field: "precipitation")
        while alice.state.callouts.count < 2 && Date() < deadline.addingTimeInterval(5) { try? await Task.sleep(for: .seconds(0.05)) }
        #expect(alice.state.callouts.last?["day"] as? String == "today")
        #expect(alice.state.callouts.last?["reason"] as? String == "updated")

        // Nobody received anything addressed to someone else.
        #expect(alice.state.foreign > 0)  // the bus did carry bob's messages...
        #expect(bob.state.set.items.keys.allSatisfy { bobExpected.contains($0) })  // ...but they never mixed
        await pipeline.stop()
    }

    @Test func restartWithoutTheFeedShowsStoredDataMarkedStale() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-offline-\(UUID().uuidString)").path
        let i = Self.initial
        let expected = Reference.visible(try Reference.records("today"), lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        var fetchedAt: Double?
        do {
            let online = try await Pipeline.start(dataDirectory: data)
            let client = try TestClient("carol", endpoints: online.endpoints)
            #expect(client.wait(timeout: 30, resend: { client.viewport(i.lat, i.lon, i.dlat, i.dlon) }) { Set($0.items.keys) == expected && $0.source == "feed" })
            fetchedAt = client.state.set.fetchedAt
            // Persist stores the snapshot in one transaction on its end marker, on its own time (the
            // client converging says the filter has it, not the store): wait for its log line
            // (`persist | TIME info persist: stored snapshot day=today …`) rather than a second.
            #expect(await online.process.waitForStderr(containing: "persist: stored snapshot day=today", timeout: .seconds(30)) != nil,
                    "\(online.process.stderrText.suffix(4000))")
            await online.stop()
        }
        // The feed is now unreachable: nothing listens on the port.
        let dead = "http://127.0.0.1:\(ProcessHarness.freeTCPPort())"
        let offline = try await Pipeline.start(dataDirectory: data, extra: ["--today", "\(dead)/today.json", "--tomorrow", "\(dead)/tomorrow.json"])
        let client = try TestClient("carol", endpoints: offline.endpoints)
        #expect(client.wait(timeout: 30, resend: { client.viewport(i.lat, i.lon, i.dlat, i.dlon) }) { Set($0.items.keys) == expected })
        let state = client.state.set
        #expect(state.source == "store")
        #expect(state.fetchedAt != nil && state.fetchedAt == fetchedAt)
        await offline.stop()
    }
}
