import Foundation
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// `nearest` and `search` from a WebSocket through `isobar up --sample`: the gateway fills in the
    /// client, the filter and formatter answer, and the gateway relays `place` and `results` to that
    /// connection only.
    @Suite struct GatewayFindTests {
        @Test func nearestAndSearchAreAnsweredOverTheWebSocket() async throws {
            let pipeline = try await GatewayPipelineTests.Pipeline.start()
            try await pipeline.waitUntilHealthy()
            let alice = WSTestClient(port: pipeline.port, query: "?client=alice")
            let bob = WSTestClient(port: pipeline.port, query: "?client=bob")
            alice.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20))
            bob.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20))
            #expect(alice.next(timeout: 10) { $0["type"] as? String == "annotations" } != nil)

            // K1D3 (PLATTE) is at 43.40332, -98.82952: a point on it is 0 km away.
            alice.send(#"{"type":"nearest","latitude":43.40332,"longitude":-98.82952}"#)
            let place = alice.next(timeout: 10) { $0["type"] as? String == "place" }
            #expect(place?["client"] as? String == "alice")
            #expect(place?["id"] as? String == "K1D3")
            #expect((place?["distanceKm"] as? NSNumber)?.doubleValue == 0)

            alice.send(#"{"type":"search","query":"k1d3","limit":5}"#)
            let results = alice.next(timeout: 10) { $0["type"] as? String == "results" }
            let hits = results?["hits"] as? [[String: Any]] ?? []
            #expect(hits.first?["id"] as? String == "K1D3")
            #expect(hits.first?["match"] as? String == "id")

            // A request a stage refuses comes back to this connection as an error frame.
            alice.send(#"{"type":"search","query":"   "}"#)
            let refused = alice.next(timeout: 10) { $0["type"] as? String == "error" }
            #expect(refused?["stage"] as? String == "filter")
            #expect(refused?["client"] as? String == "alice")

            // Bob saw none of alice's answers.
            var leaked = 0
            while let frame = bob.next(timeout: 1) {
                if ["place", "results", "error"].contains(frame["type"] as? String ?? "") { leaked += 1 }
            }
            #expect(leaked == 0)
            await pipeline.stop()
        }
    }
}
