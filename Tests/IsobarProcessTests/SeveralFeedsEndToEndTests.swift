import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// Issue 14 end to end: `isobar up` polling one feed of each format at once (onX, Dark Sky,
/// AirVisual, OpenWeather; files, real processes, real libzmq): a client gets annotations from all
/// four; `detail` for a Dark Sky station is answered in en and sk with its hourly and daily
/// forecast; a station observed hours ago is marked stale and becomes fresh after a new fetch.
@Suite(.serialized, .processSlot) struct SeveralFeedsEndToEndTests {
    /// Collects `report/<client>` answers.
    final class Reports: @unchecked Sendable {
        // @unchecked: `received` only under `condition`.
        let bus: IsobarHost.BusClient
        private let condition = NSCondition()
        private var received: [[String: Any]] = []

        init(_ client: String, endpoints: BrokerEndpoints) throws {
            bus = try IsobarHost.BusClient(endpoints: endpoints, topics: ["report/\(client)"])
            bus.start { [weak self] _, payload in
                guard let self, let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return }
                self.condition.lock()
                self.received.append(object)
                self.condition.broadcast()
                self.condition.unlock()
            }
        }

        deinit { bus.close() }

        /// Publishes `request` every half second until a report with `locale` arrives.
        func ask(_ request: String, locale: String, timeout: Double) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                bus.publish(request)
                condition.lock()
                _ = condition.wait(until: Date().addingTimeInterval(0.5))
                let found = received.first { $0["locale"] as? String == locale }
                condition.unlock()
                if let found { return found }
            }
            return nil
        }
    }

    /// The Dark Sky fixture with every `currently.time` (the observation time) set to `time`.
    static func darkSky(observedAt time: Double) throws -> Data {
        let url = ProcessHarness.packageRoot.appendingPathComponent("Fixtures/feeds/darksky.json")
        var answers = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        for index in answers.indices {
            var currently = answers[index]["currently"] as? [String: Any] ?? [:]
            currently["time"] = Int(time)
            answers[index]["currently"] = currently
        }
        return try JSONSerialization.data(withJSONObject: answers)
    }

    @Test func oneFeedOfEachFormatDetailAndStaleness() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-feeds-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let darkSky = directory + "/darksky.json"
        try Self.darkSky(observedAt: Date().timeIntervalSince1970 - 3 * 3600).write(to: URL(fileURLWithPath: darkSky))
        let feeds = ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path
        let pub = ProcessHarness.freeTCPPort(), sub = ProcessHarness.freeTCPPort()
        let endpoints = BrokerEndpoints(frontend: "tcp://127.0.0.1:\(pub)", backend: "tcp://127.0.0.1:\(sub)")
        let up = try await ProcessHarness.isobar(
            ["up", "--no-gateway", "--data-dir", directory + "/data", "--interval", "1",
             "--today", feeds + "/today.json", "--today", "darksky+" + darkSky, "--today", "airvisual+" + feeds + "/feeds/airvisual.json",
             "--today", "openweather+" + feeds + "/feeds/openweather-group.json",
             "--tomorrow", feeds + "/tomorrow.json", "--tomorrow", "darksky+" + darkSky],
            environment: ["ISOBAR_PUB": endpoints.frontend, "ISOBAR_SUB": endpoints.backend])

        // The whole world: stations of all four formats, ids prefixed by their source.
        let alice = try TestClient("alice", endpoints: endpoints)
        let all = alice.wait(timeout: 40, resend: { alice.viewport(0, 0, 180, 360, limit: 1000) }) { set in
            ["onx:K1D3", "darksky:48.7164,21.2611", "airvisual:Slovakia/Kosicky/Kosice", "openweather:2643743"].allSatisfy { set.items[$0] != nil }
        }
        #expect(all, "alice never held a station of each format: \(alice.state.items.keys.sorted().prefix(5))")
        #expect(alice.state.items.count == 191)  // 181 + 3 + 3 + 4
        // Observed three hours ago (Dark Sky, and the fixtures' AirVisual and OpenWeather times): stale; onX, just fetched: fresh.
        #expect(alice.state.items["darksky:48.7164,21.2611"]?.stale == true)
        #expect(alice.state.items["onx:K1D3"]?.stale == false)
        #expect(alice.state.items["darksky:48.7164,21.2611"]?.title == "29°")

        // detail, in en and in sk.
        let reports = try Reports("alice", endpoints: endpoints)
        let english = try #require(reports.ask(#"{"type":"detail","client":"alice","id":"darksky:48.7164,21.2611"}"#, locale: "en", timeout: 15))
        #expect((english["hourly"] as? [Any])?.count == 48 && (english["daily"] as? [Any])?.count == 8)
        #expect(english["stale"] as? Bool == true)
        let englishLines = (english["details"] as? [[String: Any]] ?? []).map { "\($0["label"] ?? ""): \($0["value"] ?? "")" }
        #expect(englishLines.prefix(3) == ["Temperature: 28.9 °F", "Wind: 9.4 mph from NW (315°) ↘", "Chance of precipitation: 72 %"])
        let slovak = try #require(reports.ask(#"{"type":"detail","client":"alice","id":"darksky:48.7164,21.2611","locale":"sk","units":"metric"}"#,
                                              locale: "sk", timeout: 15))
        let daily = try #require(slovak["daily"] as? [[String: Any]])
        #expect(daily.count == 8 && (slovak["hourly"] as? [Any])?.count == 48)
        #expect((daily[1]["details"] as? [[String: Any]])?.first.map { "\($0["label"] ?? ""): \($0["value"] ?? "")" } == "Minimum: -4,2 °C")
        // The day is a local date named in the client's locale (Košice: Europe/Bratislava, from the feed).
        #expect(daily[1]["date"] as? String == "2026-11-24" && daily[1]["weekday"] as? String == "utorok")

        // A new fetch with a fresh observation: the Dark Sky stations become fresh.
        try Self.darkSky(observedAt: Date().timeIntervalSince1970).write(to: URL(fileURLWithPath: darkSky))
        let fresh = alice.wait(timeout: 30, resend: { alice.viewport(0, 0, 180, 360, limit: 1000) }) { set in
            set.items["darksky:48.7164,21.2611"]?.stale == false
        }
        #expect(fresh, "the Dark Sky station stayed stale after a fresh observation was fetched")
        #expect(alice.state.items["openweather:2643743"]?.stale == true)
        up.signal(SIGINT); _ = await up.waitForExit(timeout: .seconds(30))
    }

    /// `up --sample --sample-formats all`: the sample feed serves every format and `up` fetches
    /// them all, so a client sees every kind of station (onX, Dark Sky, AirVisual, OpenWeather, METAR, Open-Meteo, NWS).
    @Test func upSampleServesEveryFormat() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-sample-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pub = ProcessHarness.freeTCPPort(), sub = ProcessHarness.freeTCPPort(), feed = ProcessHarness.freeTCPPort()
        let endpoints = BrokerEndpoints(frontend: "tcp://127.0.0.1:\(pub)", backend: "tcp://127.0.0.1:\(sub)")
        let up = try await ProcessHarness.isobar(
            ["up", "--no-gateway", "--data-dir", directory, "--sample", "--sample-formats", "all", "--sample-port", String(feed),
             "--fixtures", ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path],
            environment: ["ISOBAR_PUB": endpoints.frontend, "ISOBAR_SUB": endpoints.backend])
        let bob = try TestClient("bob", endpoints: endpoints)
        let all = bob.wait(timeout: 40, resend: { bob.viewport(0, 0, 180, 360, limit: 1000) }) { set in
            set.items.count == 181 + 3 + 3 + 4 + 6 + 2 + 3
        }
        #expect(all, "bob held \(bob.state.items.count) stations: \(bob.state.items.keys.sorted().prefix(5))")
        for id in ["onx:K1D3", "darksky:48.7164,21.2611", "airvisual:Slovakia/Kosicky/Kosice", "openweather:2643743", "metar:KSFO", "openmeteo:48.7200,21.2600", "nws:KSFO"] {
            #expect(bob.state.items[id] != nil, "\(id)")
        }
        // A format it does not know is refused before anything starts (ArgumentParser's usage error).
        let refused = try await ProcessHarness.isobar(["up", "--sample", "--sample-formats", "onx,gopher"]).waitForExit(timeout: .seconds(20))
        #expect(refused == .exited(64))
        up.signal(SIGINT); _ = await up.waitForExit(timeout: .seconds(30))
    }
}
