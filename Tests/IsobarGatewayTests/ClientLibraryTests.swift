import Foundation
import IsobarClient
import IsobarCore
import Testing
@testable import IsobarTestSupport

/// Follows an `IsobarClient`'s ``IsobarClient/updates`` and lets a test wait, without blocking a
/// thread, until the state matches.
actor StateWatcher {
    private(set) var latest: MapState?
    private var waiters: [(id: Int, predicate: @Sendable (MapState) -> Bool, continuation: CheckedContinuation<MapState?, Never>)] = []
    private var nextID = 0

    init(_ client: IsobarClient) {
        let updates = client.updates
        Task { [weak self] in
            for await update in updates { await self?.take(update.state) }
        }
    }

    private func take(_ state: MapState) {
        latest = state
        let ready = waiters.filter { $0.predicate(state) }
        waiters.removeAll { waiter in ready.contains { $0.id == waiter.id } }
        for waiter in ready { waiter.continuation.resume(returning: state) }
    }

    /// The first state (the latest, or a later one) that matches, or nil after `timeout` seconds.
    func until(timeout: Double = 10, _ predicate: @escaping @Sendable (MapState) -> Bool) async -> MapState? {
        if let latest, predicate(latest) { return latest }
        nextID += 1
        let id = nextID
        return await withCheckedContinuation { continuation in
            waiters.append((id, predicate, continuation))
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeout))
                await self?.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}

/// Runs a blocking wait of the process harness on a thread of its own, so the Swift concurrency
/// pool (two threads here) stays free for the client under test.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

extension GatewayProcessTests {
    /// The app's client library (`IsobarClient`) against a real gateway: the whole pipeline
    /// (`isobar up --sample`), and a gateway alone playing the stages itself on the bus.
    @Suite struct ClientLibraryTests {
        typealias Pipeline = GatewayPipelineTests.Pipeline

        static func view(_ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double, field: MapViewport.Field = .temperature) -> MapViewport {
            // No clustering: every set compares with brute force.
            MapViewport(latitude: lat, longitude: lon, latitudeDelta: dlat, longitudeDelta: dlon, field: field, limit: 1_000_000)
        }

        static func ids(_ state: MapState) -> Set<String> { Set(state.annotations.map(\.id)) }

        static func temporaryFile(_ name: String) -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent("isobar-client-\(name)-\(UUID().uuidString)").path
        }

        /// Connect, 200 pans each equal to brute force, a field toggle, select, nearest, search,
        /// detail, geocode, reverse, weather, favorites; the gateway killed (the client reconnects by
        /// itself and converges: the times are printed), the filter killed (the same), a clean stop; then a new client on
        /// the same offline file shows the last set, viewport and favorites before any connection.
        @Test func followsPansAnswersRequestsAndReconnectsThroughRestarts() async throws {
            let pipeline = try await Pipeline.start()
            try await pipeline.waitUntilHealthy()
            let today = try Reference.records("today")
            let offline = Self.temporaryFile("offline")
            defer { try? FileManager.default.removeItem(atPath: offline) }
            // The default reconnection schedule (what an app gets).
            let client = IsobarClient(.init(url: "ws://127.0.0.1:\(pipeline.port)/ws", name: "app", offlineFile: offline))
            let watcher = StateWatcher(client)
            await client.start()

            // Connect and follow 200 random pans and zooms over the US, each to brute force.
            var expected = Reference.visible(today, lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20)
            try await client.setViewport(Self.view(40.924, -108.0955, 25, 20))
            #expect(expected.count == 85)
            let first = expected
            #expect(await watcher.until { Self.ids($0) == first } != nil)
            var view = Self.view(40.924, -108.0955, 25, 20)
            for step in 0..<200 {
                try await Task.sleep(for: .milliseconds(50))  // under the gateway's 20 messages/s
                view = Self.view(Double.random(in: 20...60), Double.random(in: -130 ... -70), Double.random(in: 1...40), Double.random(in: 1...60))
                try await client.setViewport(view)
                expected = Reference.visible(today, lat: view.latitude, lon: view.longitude, dlat: view.latitudeDelta, dlon: view.longitudeDelta)
                let want = expected
                let converged = await watcher.until { Self.ids($0) == want && !$0.isBroken }
                #expect(converged != nil, "pan \(step): \(view)")
                if converged == nil { break }
            }

            // The initial region, then a field toggle: the same stations, titled in percent.
            view = Self.view(40.924, -108.0955, 25, 20)
            try await client.setViewport(view)
            expected = Reference.visible(today, lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20)
            let initial = expected
            #expect(await watcher.until { Self.ids($0) == initial } != nil)
            view.field = .precipitation
            try await client.setViewport(view)
            let toggled = await watcher.until { state in Self.ids(state) == initial && state.annotations.contains { $0.title.hasSuffix("%") } }
            #expect(toggled?.annotations.contains { $0.title.hasSuffix("°") } == false)

            // Select: the callout; nearest at the station's own point; search by its id; detail.
            let station = try #require(today.filter { initial.contains($0.id) }.min { $0.id < $1.id })
            let selected = station.id
            await client.select(selected)
            #expect(await watcher.until { $0.callout?.id == selected && $0.callout?.details?.isEmpty == false } != nil)
            let place = try await client.nearest(latitude: station.latitude, longitude: station.longitude)
            #expect(place.id == station.id && place.distanceKm == 0)
            let found = try await client.search(station.id)
            #expect(found.hits.first?.id == station.id && found.hits.first?.match == "id")
            let report = try await client.detail(station.id)
            #expect(report.id == station.id && !report.details.isEmpty)
            // Places (the sample gazetteer): geocode and reverse.
            let seoul = try await client.geocode("seoul")
            #expect(seoul.results.first?.id == 1835848)
            let near = try await client.reverse(latitude: 42.432356, longitude: 25.637389, radiusKm: 50)
            #expect(near.place?.id == 726848)
            // The weather at the station's own point: its values, the station at distance 0.
            let weather = try await client.weather(latitude: station.latitude, longitude: station.longitude)
            #expect(weather.station?.id == station.id && weather.distanceKm == 0 && !weather.details.isEmpty, "\(weather)")
            // An unknown station's detail is refused with the filter's reason.
            await #expect(throws: IsobarClientError.self) { try await client.detail("NO-SUCH-STATION") }
            // Favorites.
            let favorites = try await client.favorite(station.id, on: true)
            #expect(favorites.items.map(\.id) == [station.id] && favorites.count == 1)
            #expect(await client.state.favoriteCount == 1)

            // The gateway killed: `up` restarts it; the client reconnects by itself and converges.
            let gateway = try #require(ProcessHarness.services(under: pipeline.process.pid)["gateway"])
            let killed = ContinuousClock.now
            kill(gateway, SIGKILL)
            #expect(await watcher.until { !$0.connection.isConnected } != nil)
            let lost = ContinuousClock.now
            // Never blank meanwhile: the set held is kept while the gateway is away.
            #expect(await Self.ids(client.state) == initial)
            #expect(await watcher.until(timeout: 15) { $0.connection.isConnected } != nil)
            let reconnected = ContinuousClock.now
            view = Self.view(38, -100, 10, 12)
            try await client.setViewport(view)
            let moved = Reference.visible(today, lat: 38, lon: -100, dlat: 10, dlon: 12)
            #expect(await watcher.until { Self.ids($0) == moved && !$0.isBroken } != nil)
            print("client library: gateway killed; the client saw the loss after \(lost - killed), reconnected by itself \(reconnected - killed) after the kill, its next pan converged \(ContinuousClock.now - reconnected) after reconnecting")
            let second = try #require(today.filter { moved.contains($0.id) && $0.id != station.id }.min { $0.id < $1.id })
            #expect(try await client.favorite(second.id, on: true).items.map(\.id) == [station.id, second.id])

            // The filter killed: `up` restarts it; the gateway's lease repairs the client's set.
            let filterService = try #require(ProcessHarness.services(under: pipeline.process.pid)["filter"])
            let filter = try #require(ProcessHarness.stagePID(ofService: filterService))
            let filterKilled = ContinuousClock.now
            kill(filter, SIGKILL)
            try await Task.sleep(for: .milliseconds(300))
            view = Self.view(40.924, -108.0955, 25, 20)
            try await client.setViewport(view)
            #expect(await watcher.until(timeout: 20) { Self.ids($0) == initial && !$0.isBroken } != nil)
            print("client library: filter killed; a pan sent 300 ms later converged \(ContinuousClock.now - filterKilled) after the kill")
            #expect(try await client.favorite(second.id, on: true).reason == "unchanged")
            await client.stop()
            #expect(await client.state.connection == .stopped)

            // A new client on the same file, the gateway unreachable: the last set, viewport and
            // favorites, shown offline with their age before any connection.
            let unreachable = IsobarClient(.init(url: "ws://127.0.0.1:\(ProcessHarness.freeTCPPort())/ws", name: "app", offlineFile: offline))
            await unreachable.start()
            let shown = await unreachable.state
            #expect(Self.ids(shown) == initial)
            #expect(shown.isOffline && shown.restoredFrom != nil && shown.viewport == view)
            #expect(shown.favorites?.items.map(\.id) == [station.id, second.id])
            #expect(shown.dataAge() != nil)
            await unreachable.stop()
            await pipeline.stop()
        }

        /// A gateway alone (the test plays filter and formatter on the bus) with TLS and a token
        /// file: a wrong token is refused with a clear reason; the right one connects over
        /// `wss://`; a version gap makes the client ask for a resync, and the full set repairs it.
        @Test func wssTokenAndAVersionGapResynced() async throws {
            let tls = try await GatewayProcessTests.TLSAndNames.selfSignedCertificate()
            defer { try? FileManager.default.removeItem(atPath: tls.directory) }
            let tokens = Self.temporaryFile("tokens")
            try "s3cret app\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: tokens) }
            let gw = try await GatewayAlone(["--tls-cert", tls.certificate, "--tls-key", tls.key, "--token-file", tokens])
            #expect(try await offPool { gw.waitFor(topic: "lease", timeout: 10) } != nil)
            gw.publishTally(today: "today-x")
            let url = "wss://localhost:\(gw.port)/ws"

            let intruder = IsobarClient(.init(url: url, name: "app", token: "nope", trustRootsFile: tls.certificate))
            let refused = StateWatcher(intruder)
            await intruder.start()
            let waiting = await refused.until { if case .waiting = $0.connection { true } else { false } }
            guard case .waiting(_, _, let reason) = waiting?.connection else { Issue.record("never refused"); return }
            #expect(reason.contains("refused the WebSocket upgrade") && reason.contains("token"), "\(reason)")
            await intruder.stop()

            let client = IsobarClient(.init(url: url, name: "app", token: "s3cret", trustRootsFile: tls.certificate))
            let watcher = StateWatcher(client)
            await client.start()
            let mark = gw.seenCount
            try await client.setViewport(Self.view(40, -100, 2, 3))
            let viewport = try await offPool { gw.waitFor(topic: Topic.of(type: "viewport", client: "app"), from: mark, timeout: 15) }
            #expect(viewport?.contains(#""client":"app""#) == true, "\(gw.gateway.stderrText)")

            let item = { (id: String) in #"{"id":"\#(id)","coordinate":{"latitude":40,"longitude":-100},"title":"1°","subtitle":"\#(id)","value":1}"# }
            gw.bus.publish(#"{"type":"annotations","client":"app","version":1,"full":true,"day":"today","upsert":[\#(item("A")),\#(item("B"))],"remove":[]}"#)
            #expect(await watcher.until { $0.version == 1 && Self.ids($0) == ["A", "B"] } != nil)
            let gapMark = gw.seenCount
            gw.bus.publish(#"{"type":"annotations","client":"app","version":3,"full":false,"day":"today","upsert":[\#(item("C"))],"remove":[]}"#)
            let resync = try await offPool { gw.waitFor(topic: Topic.of(type: "resync", client: "app"), from: gapMark, timeout: 10) }
            #expect(resync?.contains(#""reason":"version gap""#) == true)
            #expect(await watcher.until { $0.isBroken } != nil)
            gw.bus.publish(#"{"type":"annotations","client":"app","version":4,"full":true,"day":"today","upsert":[\#(item("A")),\#(item("C"))],"remove":[]}"#)
            #expect(await watcher.until { $0.version == 4 && !$0.isBroken && Self.ids($0) == ["A", "C"] } != nil)
            await client.stop()
            await gw.stop()
        }
    }
}
