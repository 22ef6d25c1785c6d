import Foundation
import IsobarCore
import IsobarNet
import IsobarSampleFeed
import Testing

/// Favorites trigger outlooks (PROTOCOL.md, "Forecast on demand"): a client's favorites list asks
/// for the forecasts of its cells as an opened detail does, at most 10 cells per list, and the list
/// (`starred`) comes again with each favorite's coming days when they arrive. Wired as on the bus
/// with the sample feed's Open-Meteo fixture over real HTTP (`ForecastOnDemandTests.Rig`).
@Suite(.serialized) struct FavoriteOutlookTests {
    @Test func aStarredStationGetsItsComingDaysOnTheLocalClock() async throws {
        try await ForecastOnDemandTests.withRig { rig, server in
            let out = await rig.send([#"{"type":"favorite","client":"alice","id":"LZKZ","on":true}"#])
            try #require(out.count == 2)
            #expect(rig.outlooks == [#"{"type":"outlook","latitude":48.7,"longitude":21.2}"#])
            let first = try ForecastOnDemandTests.object(out[0]), second = try ForecastOnDemandTests.object(out[1])
            #expect(first["type"] as? String == "starred" && first["reason"] as? String == "added")
            let pendingItem = try #require((first["items"] as? [[String: Any]])?.first)
            #expect(pendingItem["outlook"] as? [String: String] == ["state": "pending"])
            #expect(second["type"] as? String == "starred" && second["reason"] as? String == "forecast")
            let item = try #require((second["items"] as? [[String: Any]])?.first)
            let outlook = try #require(item["outlook"] as? [String: Any])
            #expect(outlook["state"] as? String == "ok" && outlook["zone"] as? String == "Europe/Bratislava")
            let days = try #require(outlook["days"] as? [[String: Any]])
            #expect(days.count == 7)  // the fixture's 7 days
            #expect(days.prefix(2).map(ForecastOnDemandTests.point) == [
                "2026-11-26T00:00:00+01:00 Thursday Light snow: Low: 28.4 °F, High: 42.8 °F, Chance of precipitation: 0 %, Wind: 12.4 mph from WSW (250°) →",
                "2026-11-27T00:00:00+01:00 Friday Snow: Low: 27.9 °F, High: 43.7 °F, Chance of precipitation: 10 %, Wind: 13.0 mph from W (260°) →"])
            #expect(server.responder.requests == 1)
            // The list again (a change, a presentation, a snapshot): the held forecast, no new request.
            let again = await rig.send([#"{"type":"favorite","client":"alice","id":"LZKZ","on":true}"#])
            try #require(again.count == 1)
            #expect(again[0].contains(#""outlook":{"state":"ok","zone":"Europe/Bratislava","days":[{"time":1795647600,"#))
            #expect(rig.outlooks.count == 1 && server.responder.requests == 1)
        }
    }

    @Test func atMostTenCellsOfAListAreAskedFor() async throws {
        try await ForecastOnDemandTests.withRig { rig, server in
            // Twelve pins, each in a cell of its own, and a thirteenth in the first pin's cell.
            let pins = (0..<12).map { #"{"pin":{"name":"P\#($0)","latitude":\#(40 + $0),"longitude":10}}"# }
                + [#"{"pin":{"name":"Near P0","latitude":40.01,"longitude":10.02}}"#]
            let out = await rig.send([#"{"type":"favorite","client":"bob","items":["# + pins.joined(separator: ",") + "]}"])
            // The list (every outlook pending), then once more per cell as each forecast arrives.
            #expect(out.count == 11)
            #expect(rig.outlooks.count == 10 && server.responder.requests == 10)
            #expect(Set(rig.outlooks).count == 10)
            let last = try ForecastOnDemandTests.object(try #require(out.last))
            let states = (last["items"] as? [[String: Any]] ?? []).map { ($0["outlook"] as? [String: Any])?["state"] as? String ?? "none" }
            #expect(states == Array(repeating: "ok", count: 10) + ["none", "none", "ok"])
        }
    }
}
