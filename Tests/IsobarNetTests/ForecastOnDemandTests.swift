import Foundation
import IsobarCore
import IsobarNet
import IsobarSampleFeed
import Testing

/// Forecast on demand (issue 34 item 2): a client opens a detail, the filter asks for the cell's
/// forecast (`outlook`), the forecast stage fetches Open-Meteo's answer from the sample feed over
/// real HTTP on loopback (its `/openmeteo.json` fixture, Košice), and the filter sends the detail
/// again with the forecast, which the formatter words in the client's locale on the point's clock.
@Suite(.serialized) struct ForecastOnDemandTests {
    /// An onX station of a feed of our own, in Košice (an onX line has no forecast of its own).
    static let kosice = Station(id: "LZKZ", name: "KOSICE", coordinate: Coordinate(latitude: 48.6631, longitude: 21.2411),
                                temperature: 33.8, windSpeed: 6.9, windDirection: 220, precipitation: 40)
    static let place = #"{"id":724443,"name":"Košice","admin1":null,"countryCode":"SK","country":"Slovakia","latitude":48.71395,"longitude":21.25808,"population":242066,"timeZone":"Europe/Bratislava"}"#
    static let start = 1_795_690_000.0

    /// Filter (forecasts on), forecast stage and formatter wired as on the bus, with the sample
    /// feed as Open-Meteo.
    final class Rig {
        let filter: FilterEngine
        let forecast: ForecastEngine
        let formatter = FormatEngine()
        let client = FeedClient(timeout: 5, maxBodyBytes: 4 << 20, maxRedirects: 0)
        let clock = ManualClock(ForecastOnDemandTests.start)
        /// Every `outlook` the filter wrote, and every `forecast` line the stage wrote.
        var outlooks: [String] = []
        var forecasts: [String] = []

        init(url: String) {
            var options = FilterOptions()
            options.forecasts = true
            filter = FilterEngine(options: options, wallClock: clock.closure)
            forecast = ForecastEngine(urlTemplate: url, refresh: 3600, retry: 300)
            var input = JSONWriter()
            OnXFeed.writeSnapshot(day: .today, stations: [ForecastOnDemandTests.kosice], source: .feed, fetchedAt: ForecastOnDemandTests.start, into: &input)
            _ = filterLines(String(decoding: input.bytes, as: UTF8.self).split(separator: "\n").map(String.init))
        }

        func filterLines(_ lines: [String]) -> [String] {
            var out = JSONWriter()
            for line in lines { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &out) } }
            return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        }

        /// Sends `lines` to the filter and runs the bus until it is quiet: outlooks to the
        /// forecast stage (fetching over HTTP), forecasts back to the filter, everything else to
        /// the formatter. Returns the formatter's lines.
        func send(_ lines: [String]) async -> [String] {
            var pending = filterLines(lines)
            var formatted: [String] = []
            while !pending.isEmpty {
                var next: [String] = []
                for line in pending {
                    if line.hasPrefix(#"{"type":"outlook""#) {
                        outlooks.append(line)
                        var out = JSONWriter()
                        let cell = Array(line.utf8).withUnsafeBytes { forecast.handle(line: $0, now: clock.read(), into: &out) }
                        if let cell {
                            let response = await ForecastFetch.get(client, forecast.url(for: cell), logger: TestSupport.quiet)
                            ForecastFetch.deliver(response, for: cell, to: forecast, now: clock.read(), logger: TestSupport.quiet, into: &out)
                        }
                        let answers = String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
                        forecasts += answers
                        next += filterLines(answers)
                    } else {
                        var out = JSONWriter()
                        Array(line.utf8).withUnsafeBytes { formatter.handle(line: $0, into: &out) }
                        formatted += String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
                    }
                }
                pending = next
            }
            return formatted
        }

        func shutdown() async { await client.shutdown() }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A forecast point as `local weekday: line texts`.
    static func point(_ point: [String: Any]) -> String {
        let lines = (point["details"] as? [[String: Any]] ?? []).map { "\($0["label"] ?? ""): \($0["value"] ?? "")" }
        return "\(point["local"] ?? "") \(point["weekday"] ?? "") \(point["summary"] ?? ""): " + lines.joined(separator: ", ")
    }

    static func withRig<T>(fault: String? = nil, _ body: (Rig, SampleFeedServer) async throws -> T) async throws -> T {
        try await TestSupport.withServer { server in
            let url = "http://127.0.0.1:\(server.port)/openmeteo.json?latitude={latitude}&longitude={longitude}" + (fault.map { "&fault=" + $0 } ?? "")
            let rig = Rig(url: url)
            do {
                let result = try await body(rig, server)
                await rig.shutdown()
                return result
            } catch {
                await rig.shutdown()
                throw error
            }
        }
    }

    @Test func theDetailOfAnOnXStationGetsTheForecastInEnglishOnTheLocalClock() async throws {
        try await Self.withRig { rig, server in
            let out = await rig.send([#"{"type":"detail","client":"alice","id":"LZKZ"}"#])
            // First the detail without a forecast, saying one is on its way; then again with it.
            try #require(out.count == 2)
            #expect(rig.outlooks == [#"{"type":"outlook","latitude":48.7,"longitude":21.2}"#])
            let first = try Self.object(out[0]), second = try Self.object(out[1])
            #expect(first["forecast"] as? [String: String] == ["state": "pending"])
            #expect((first["hourly"] as? [Any])?.isEmpty == true && first["zone"] as? String == "UTC")
            #expect(out[1].contains(#""forecast":{"state":"ok","fetchedAt":1795690000,"expiresAt":1795693600}"#))
            #expect(second["zone"] as? String == "Europe/Bratislava")
            let hourly = try #require(second["hourly"] as? [[String: Any]]), daily = try #require(second["daily"] as? [[String: Any]])
            #expect(hourly.count == 48 && daily.count == 7)  // the fixture's 7 days
            #expect(hourly.prefix(2).map(Self.point) == ["2026-11-26T09:00:00+01:00 Thursday Snow: Temperature: 35.6 °F, Chance of precipitation: 63 %, Wind: 10.6 mph from WSW (245°) ↗",
                                                       "2026-11-26T10:00:00+01:00 Thursday Snow: Temperature: 37.4 °F, Chance of precipitation: 70 %, Wind: 5.0 mph from WSW (250°) →"])
            #expect(daily.prefix(2).map(Self.point) == ["2026-11-26T00:00:00+01:00 Thursday Light snow: Low: 28.4 °F, High: 42.8 °F, Chance of precipitation: 0 %, Wind: 12.4 mph from WSW (250°) →",
                                                      "2026-11-27T00:00:00+01:00 Friday Snow: Low: 27.9 °F, High: 43.7 °F, Chance of precipitation: 10 %, Wind: 13.0 mph from W (260°) →"])
            #expect(server.responder.requests == 1)
        }
    }

    static func spot(_ client: String, locale: String? = nil) -> String {
        #"{"type":"spot","client":""# + client + #"","latitude":48.72,"longitude":21.26,"radiusKm":100,"place":"# + place
            + #","placeDistanceKm":0,"detail":true"# + (locale.map { #","units":"metric","locale":""# + $0 + #"""# } ?? "") + "}"
    }

    @Test func theDetailOfAPlaceGetsThePlacesForecastInSlovak() async throws {
        try await Self.withRig { rig, server in
            let out = await rig.send([Self.spot("zuzana", locale: "sk")])
            try #require(out.count == 2)
            // The place's own cell (its point), not its nearest station's.
            #expect(rig.outlooks == [#"{"type":"outlook","latitude":48.7,"longitude":21.3}"#])
            let second = try Self.object(out[1])
            #expect(second["title"] as? String == "Košice" && second["zone"] as? String == "Europe/Bratislava")
            let hourly = try #require(second["hourly"] as? [[String: Any]]), daily = try #require(second["daily"] as? [[String: Any]])
            #expect(hourly.count == 48 && daily.count == 7)  // the fixture's 7 days
            #expect(hourly.prefix(2).map(Self.point) == ["2026-11-26T09:00:00+01:00 štvrtok Snow: Teplota: 2,0 °C, Pravdepodobnosť zrážok: 63 %, Vietor: 17,0 km/h od ZJZ (245°) ↗",
                                                       "2026-11-26T10:00:00+01:00 štvrtok Snow: Teplota: 3,0 °C, Pravdepodobnosť zrážok: 70 %, Vietor: 8,0 km/h od ZJZ (250°) →"])
            #expect(daily.prefix(2).map(Self.point) == ["2026-11-26T00:00:00+01:00 štvrtok Light snow: Minimum: -2,0 °C, Maximum: 6,0 °C, Pravdepodobnosť zrážok: 0 %, Vietor: 20,0 km/h od ZJZ (250°) →",
                                                      "2026-11-27T00:00:00+01:00 piatok Snow: Minimum: -2,3 °C, Maximum: 6,5 °C, Pravdepodobnosť zrážok: 10 %, Vietor: 21,0 km/h od Z (260°) →"])
            #expect(server.responder.requests == 1)
        }
    }

    @Test func manyClientsCostOneRequestPerCellPerRefresh() async throws {
        try await Self.withRig { rig, server in
            // 40 clients open the station's detail and 40 the place's, before and after the answers.
            var lines: [String] = []
            for index in 0..<40 {
                lines.append(#"{"type":"detail","client":"c\#(index)","id":"LZKZ"}"#)
                lines.append(Self.spot("p\(index)"))
            }
            let out = await rig.send(lines)
            // Each client: the pending detail, then the detail with the forecast.
            #expect(out.count == 160)
            #expect(out.filter { $0.contains(#""forecast":{"state":"ok""#) }.count == 80)
            #expect(rig.outlooks.count == 2 && server.responder.requests == 2)
            _ = await rig.send(lines)
            #expect(rig.outlooks.count == 2 && server.responder.requests == 2)
            // The refresh: an hour later the next detail of each cell asks once more, and only once.
            rig.clock.advance(3600)
            _ = await rig.send(lines)
            #expect(rig.outlooks.count == 4 && server.responder.requests == 4)
            // The same outlook repeated (another filter shard asking) is answered from the cache.
            for line in rig.outlooks.prefix(2) {
                var out = JSONWriter()
                let cell = Array(line.utf8).withUnsafeBytes { rig.forecast.handle(line: $0, now: rig.clock.read(), into: &out) }
                #expect(cell == nil && String(decoding: out.bytes, as: UTF8.self).hasPrefix(#"{"type":"forecast","latitude":48.7"#))
            }
            #expect(server.responder.requests == 4 && rig.forecast.fetches == 4)
        }
    }

    @Test(arguments: [("500", "HTTP 500 Internal Server Error"), ("notjson", "feed body is not an Open-Meteo forecast response"), ("empty", "feed body is an empty array")])
    func aFailedOrWrongAnswerLeavesTheDetailWithoutForecastAndSaysSo(fault: String, reason: String) async throws {
        try await Self.withRig(fault: fault) { rig, server in
            let out = await rig.send([#"{"type":"detail","client":"alice","id":"LZKZ"}"#, #"{"type":"detail","client":"bob","id":"LZKZ"}"#])
            try #require(out.count == 4)
            let last = try Self.object(out[3])
            let forecast = try #require(last["forecast"] as? [String: Any])
            #expect(forecast["state"] as? String == "failed")
            #expect((forecast["reason"] as? String)?.hasPrefix(reason) == true)
            #expect((last["hourly"] as? [Any])?.isEmpty == true && (last["daily"] as? [Any])?.isEmpty == true)
            // Held for the retry time: asking again costs no request.
            _ = await rig.send([#"{"type":"detail","client":"alice","id":"LZKZ"}"#])
            #expect(server.responder.requests == 1)
        }
    }
}
