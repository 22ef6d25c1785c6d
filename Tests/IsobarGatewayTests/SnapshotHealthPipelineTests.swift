import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// Issue 27, item 2's reporting, end to end: `isobar up --sample` with its gateway, and forged
    /// snapshots published on the bus. A held-back snapshot turns the gateway's `/healthz` to
    /// "degraded" with the reason (still 200: the maps are served from the previous snapshot), counts
    /// in `/metrics` (`isobar_gateway_snapshots_total{outcome=...}`, `isobar_gateway_snapshots_held`)
    /// and is logged; its confirmation by a later fetch counts too and ends the degraded state.
    @Suite struct SnapshotHealthPipelineTests {
        typealias Pipeline = GatewayPipelineTests.Pipeline

        /// Publishes `lines` every 0.3 s (the first may go nowhere: slow joiner) until /healthz
        /// answers something `match` accepts; that answer, or nil after `timeout` seconds.
        func publish(_ lines: [String], on bus: BusClient, port: Int, timeout: Double = 20,
                     until match: (HTTPProbe.Reply) -> Bool) -> HTTPProbe.Reply? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                for line in lines { bus.publish(line) }
                Thread.sleep(forTimeInterval: 0.3)
                if let reply = try? HTTPProbe.get(port: port, path: "/healthz"), match(reply) { return reply }
            }
            return nil
        }

        /// The metric lines of /metrics that name snapshots, `name{labels} value` each.
        func snapshotMetrics(_ port: Int) throws -> [String] {
            try HTTPProbe.get(port: port, path: "/metrics").body.split(separator: "\n")
                .filter { $0.hasPrefix("isobar_gateway_snapshots_") }.map(String.init).sorted()
        }

        @Test("a held-back snapshot is /healthz degraded, counted in /metrics and logged until confirmed", .timeLimit(.minutes(3)))
        func aHeldSnapshotIsReportedByTheGateway() async throws {
            let pipeline = try await Pipeline.start()
            try await pipeline.waitUntilHealthy(timeout: 60)
            #expect(try HTTPProbe.get(port: pipeline.port, path: "/healthz").body == "ok\n")
            #expect(try snapshotMetrics(pipeline.port) == [
                #"isobar_gateway_snapshots_held 0.0"#,
                #"isobar_gateway_snapshots_total{outcome="confirmed"} 0"#,
                #"isobar_gateway_snapshots_total{outcome="held_empty"} 0"#,
                #"isobar_gateway_snapshots_total{outcome="held_shrunk"} 0"#,
                #"isobar_gateway_snapshots_total{outcome="refused_future"} 0"#,
            ])
            let bus = try BusClient(endpoints: BrokerEndpoints(frontend: pipeline.pub, backend: pipeline.sub), topics: ["status"])
            defer { bus.close() }
            let now = Date().timeIntervalSince1970
            // A one-station snapshot fetched 5 s ahead: held back (the sample's today has 181 stations).
            let forged = [
                #"{"type":"station","day":"today","snapshot":"today-forged","seq":0,"id":"K1D3","name":"FORGED","latitude":40.9,"longitude":-108.1,"temperature":-40}"#,
                #"{"type":"snapshot","day":"today","snapshot":"today-forged","count":1,"source":"feed","fetchedAt":\#(now + 5)}"#,
            ]
            let reason = "the filter holds back snapshot today-forged of today (1 station(s) where the day's has 181) until a later fetch of the same content confirms it"
            let degraded = publish(forged, on: bus, port: pipeline.port) { $0.body.hasPrefix("degraded") }
            #expect(degraded?.status == 200)
            #expect(degraded?.body == "degraded: \(reason)\n", "\(String(describing: degraded))\n\(pipeline.process.stderrText.suffix(2000))")
            #expect(await pipeline.process.waitForStderr(containing: reason, timeout: .seconds(10)) != nil, "not logged")
            // An end marker 10 years ahead: refused, counted.
            let future = [#"{"type":"snapshot","day":"today","snapshot":"today-late","count":0,"source":"feed","fetchedAt":\#(now + 315_360_000)}"#]
            _ = publish(future, on: bus, port: pipeline.port) { _ in
                (try? snapshotMetrics(pipeline.port).contains(#"isobar_gateway_snapshots_total{outcome="refused_future"} 0"#)) == false
            }
            #expect(await pipeline.process.waitForStderr(containing: "snapshot(s) fetched too far in the future", timeout: .seconds(10)) != nil)
            let held = try snapshotMetrics(pipeline.port)
            #expect(held.filter { !$0.contains("refused_future") } == [
                #"isobar_gateway_snapshots_held 1.0"#,
                #"isobar_gateway_snapshots_total{outcome="confirmed"} 0"#,
                #"isobar_gateway_snapshots_total{outcome="held_empty"} 0"#,
                #"isobar_gateway_snapshots_total{outcome="held_shrunk"} 1"#,
            ])
            #expect(held.contains { $0.hasPrefix(#"isobar_gateway_snapshots_total{outcome="refused_future"} "#) && !$0.hasSuffix(" 0") })
            // The same content fetched again later confirms it: applied, counted, healthy again.
            let again = [#"{"type":"snapshot","day":"today","snapshot":"today-forged","count":1,"source":"feed","fetchedAt":\#(now + 6)}"#]
            let ok = publish(again, on: bus, port: pipeline.port) { $0.body == "ok\n" }
            #expect(ok?.status == 200, "\(String(describing: ok))")
            let after = try snapshotMetrics(pipeline.port)
            #expect(after.contains(#"isobar_gateway_snapshots_total{outcome="confirmed"} 1"#), "\(after)")
            #expect(after.contains(#"isobar_gateway_snapshots_held 0.0"#), "\(after)")
            #expect(await pipeline.process.waitForStderr(containing: "snapshot today-forged of today no longer held back (applied: a later fetch confirmed it)",
                                                   timeout: .seconds(10)) != nil)
            await pipeline.stop()
        }
    }
}
