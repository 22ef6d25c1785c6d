import Foundation
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// `geocode` and `reverse` from a WebSocket through `isobar up --sample` (its places stage on the
    /// sample gazetteer, Fixtures/places-sample.txt, that the harness sets): the gateway admits them,
    /// fills in the client, and relays `locations` and `vicinity` to that connection only.
    @Suite struct GatewayPlacesTests {
        @Test func geocodeAndReverseAreAnsweredOverTheWebSocket() async throws {
            let pipeline = try await GatewayPipelineTests.Pipeline.start()
            try await pipeline.waitUntilHealthy()
            let alice = WSTestClient(port: pipeline.port, query: "?client=alice")
            let bob = WSTestClient(port: pipeline.port, query: "?client=bob")
            bob.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20))

            alice.send(#"{"type":"geocode","query":"springfield, mo"}"#)
            let locations = alice.next(timeout: 20) { $0["type"] as? String == "locations" }
            #expect(locations?["client"] as? String == "alice")
            let results = locations?["results"] as? [[String: Any]] ?? []
            #expect(results.map { $0["id"] as? Int } == [4409896])
            #expect(results.first?["admin1"] as? String == "Missouri")

            alice.send(#"{"type":"reverse","latitude":42.432356,"longitude":25.637389}"#)
            let vicinity = alice.next(timeout: 10) { $0["type"] as? String == "vicinity" }
            #expect((vicinity?["place"] as? [String: Any])?["name"] as? String == "Stara Zagora")
            #expect((vicinity?["distanceKm"] as? NSNumber)?.doubleValue == 0.43065677264090574)

            alice.send(#"{"type":"reverse","latitude":0,"longitude":0,"radiusKm":0}"#)
            let refused = alice.next(timeout: 10) { $0["type"] as? String == "error" }
            #expect(refused?["stage"] as? String == "places")
            #expect(refused?["client"] as? String == "alice")

            var leaked = 0
            while let frame = bob.next(timeout: 1) {
                if ["locations", "vicinity", "error"].contains(frame["type"] as? String ?? "") { leaked += 1 }
            }
            #expect(leaked == 0)
            await pipeline.stop()
        }

        /// `weather` from two WebSockets through `isobar up --sample --filters 2` (alice in shard 1's
        /// partitions, bob in shard 0's): places names the place, the client's own shard finds the
        /// station, the formatter words `conditions` (or a `report` for a detail), the gateway relays
        /// it to that connection only, once.
        @Test func weatherCrossesPlacesAndTheClientsShard() async throws {
            let pipeline = try await GatewayPipelineTests.Pipeline.start(extra: ["--filters", "2"])
            try await pipeline.waitUntilHealthy()
            let alice = WSTestClient(port: pipeline.port, query: "?client=alice")
            let bob = WSTestClient(port: pipeline.port, query: "?client=bob")
            for (client, name) in [(alice, "alice"), (bob, "bob")] {
                client.send(#"{"type":"weather","id":5419384,"radiusKm":500}"#)
                let conditions = client.next(timeout: 20) { $0["type"] as? String == "conditions" }
                #expect(conditions?["client"] as? String == name)
                #expect(conditions?["title"] as? String == "Denver")
                #expect((conditions?["current"] as? [String: Any])?["country"] as? String == "United States")
                let station = try #require(conditions?["station"] as? [String: Any], "\(conditions ?? [:])")
                #expect((conditions?["distanceKm"] as? NSNumber)?.doubleValue ?? 1000 <= 500)
                #expect((station["id"] as? String)?.isEmpty == false)
            }
            alice.send(#"{"type":"weather","latitude":0,"longitude":0,"units":"metric"}"#)
            let ocean = alice.next(timeout: 10) { $0["type"] as? String == "conditions" }
            #expect(ocean?["subtitle"] as? String == "no station within 50 km · Today")
            #expect(ocean?["place"] is NSNull && ocean?["station"] is NSNull)
            bob.send(#"{"type":"weather","id":5419384,"radiusKm":500,"detail":true}"#)
            let report = bob.next(timeout: 10) { $0["type"] as? String == "report" }
            #expect(report?["title"] as? String == "Denver")
            #expect((report?["place"] as? [String: Any])?["id"] as? Int == 5419384)
            alice.send(#"{"type":"weather","id":12345}"#)
            let refused = alice.next(timeout: 10) { $0["type"] as? String == "error" }
            #expect(refused?["message"] as? String == "unknown place id 12345")
            // Nothing more: one answer per request (one shard answered), none for the other client.
            var extra: [String] = []
            for client in [alice, bob] {
                while let frame = client.next(timeout: 1) {
                    let type = frame["type"] as? String ?? ""
                    if ["conditions", "report", "error"].contains(type) { extra.append(type) }
                }
            }
            #expect(extra.isEmpty)
            await pipeline.stop()
        }
    }
}
