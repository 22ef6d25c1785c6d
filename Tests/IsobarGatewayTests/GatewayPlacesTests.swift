import Foundation
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// `geocode` and `reverse` from a WebSocket through `isobar up --sample` (its places stage on the
    /// sample gazetteer, Fixtures/places-sample.txt, that the harness sets): the gateway admits them,
    /// fills in the client, and relays `locations` and `vicinity` to that connection only.
    @Suite struct GatewayPlacesTests {
        @Test func geocodeAndReverseAreAnsweredOverTheWebSocket() throws {
            let pipeline = try GatewayPipelineTests.Pipeline.start()
            defer { pipeline.stop() }
            try pipeline.waitUntilHealthy()
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
        }
    }
}
