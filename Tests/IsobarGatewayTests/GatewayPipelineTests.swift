import Foundation
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// The gateway in the whole pipeline (`isobar up --sample`, real broker, stages, sample feed over
    /// HTTP) with real WebSocket clients on 127.0.0.1.
    @Suite struct GatewayPipelineTests {
        struct Pipeline {
            let process: ProcessHarness
            let port: Int
            /// The broker's endpoints (ISOBAR_PUB, ISOBAR_SUB), for a test's own bus client.
            var pub = ""
            var sub = ""

            /// `extra`: more arguments for `up` (`--filters 2`). `unixSockets`: the bus on `ipc://`
            /// endpoints (socket files in /tmp, removed by `stop`) instead of loopback TCP.
            static func start(extra: [String] = [], unixSockets: Bool = false) async throws -> Pipeline {
                let (pub, sub): (String, String)
                if unixSockets {
                    let base = "/tmp/isobar-gw-\(UUID().uuidString.prefix(13))"  // ipc paths are limited to ~107 bytes
                    (pub, sub) = ("ipc://\(base)-pub.sock", "ipc://\(base)-sub.sock")
                } else {
                    (pub, sub) = ("tcp://127.0.0.1:\(ProcessHarness.freeTCPPort())", "tcp://127.0.0.1:\(ProcessHarness.freeTCPPort())")
                }
                let http = ProcessHarness.freeTCPPort(), gateway = Int(ProcessHarness.freeTCPPort())
                let data = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-gw-\(UUID().uuidString)").path
                let process = try await ProcessHarness.isobar(
                    ["up", "--sample", "--sample-port", String(http), "--sample-period", "3600", "--data-dir", data,
                     "--fixtures", ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path,
                     "--gateway", "127.0.0.1:\(gateway)"] + extra,
                    environment: ["ISOBAR_PUB": pub, "ISOBAR_SUB": sub])
                return Pipeline(process: process, port: gateway, pub: pub, sub: sub)
            }

            /// Waits for the map URL and for /healthz to say 200 (the filter answers leases and has data).
            func waitUntilHealthy(timeout: Double = 120) async throws {
                try #require(await process.waitForStderr(containing: "web map: http://127.0.0.1:\(port)/", timeout: .seconds(timeout)) != nil,
                             "\(process.stderrText)")
                let deadline = Date().addingTimeInterval(timeout)
                var last = ""
                while Date() < deadline {
                    if let reply = try? HTTPProbe.get(port: port, path: "/healthz") {
                        if reply.status == 200 { return }
                        last = "\(reply.status) \(reply.body)"
                    }
                    try? await Task.sleep(for: .seconds(0.2))
                }
                Issue.record("never healthy: \(last)\n\(process.stderrText)")
                throw HTTPProbe.Failure(description: "never healthy")
            }

            func stop() async {
                process.signal(SIGINT)
                _ = await process.waitForExit(timeout: .seconds(30))
                for endpoint in [pub, sub] where endpoint.hasPrefix("ipc://") {
                    try? FileManager.default.removeItem(atPath: String(endpoint.dropFirst("ipc://".count)))
                }
            }
        }

        /// Applies frames until the client holds exactly `expected`; returns what it holds.
        func converge(_ client: WSTestClient, _ held: inout HeldAnnotations, to expected: Set<String>, timeout: Double = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Set(held.titles.keys) != expected {
                guard let frame = client.next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return false }
                held.apply(frame)
            }
            return true
        }

        /// alice on the map's port, sent the initial region and holding its 85 stations (checked).
        func aliceInTheInitialRegion(_ pipeline: Pipeline, today: [Reference.Record]) -> (WSTestClient, HeldAnnotations, Set<String>) {
            let alice = WSTestClient(port: pipeline.port, query: "?client=alice")
            var held = HeldAnnotations()
            alice.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20))
            let initial = Reference.visible(today, lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20)
            #expect(today.count == 181 && initial.count == 85)
            #expect(converge(alice, &held, to: initial), "holds \(held.titles.count)")
            #expect(held.titles.count == 85)
            return (alice, held, initial)
        }

        /// `steps` random pans and zooms over the US, each converging to brute force (paced under
        /// the gateway's default 20 messages/s, as a map throttles its viewports); no version gap.
        func panConverges(_ alice: WSTestClient, _ held: inout HeldAnnotations, today: [Reference.Record], steps: Int) {
            var rng = SystemRandomNumberGenerator()
            for step in 0..<steps {
                Thread.sleep(forTimeInterval: 0.05)
                let lat = Double.random(in: 20...60, using: &rng), lon = Double.random(in: -130 ... -70, using: &rng)
                let dlat = Double.random(in: 1...40, using: &rng), dlon = Double.random(in: 1...60, using: &rng)
                alice.send(Reference.viewport(lat: lat, lon: lon, dlat: dlat, dlon: dlon))
                let expected = Reference.visible(today, lat: lat, lon: lon, dlat: dlat, dlon: dlon)
                let ok = converge(alice, &held, to: expected)
                #expect(ok, "pan \(step) \(lat),\(lon) \(dlat)x\(dlon): holds \(held.titles.count), expected \(expected.count)")
                if !ok { break }
            }
            #expect(held.gaps == 0)
        }

        /// The initial region again with the precipitation field: a full set of the same stations,
        /// titled in percent.
        func precipitationToggleConverges(_ alice: WSTestClient, _ held: inout HeldAnnotations, initial: Set<String>) throws {
            alice.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20, field: "precipitation"))
            let toggled = alice.next(timeout: 30) { $0["type"] as? String == "annotations" && $0["full"] as? Bool == true }
            try #require(toggled != nil)
            held.apply(toggled ?? [:])
            #expect(Set(held.titles.keys) == initial)
            #expect(held.titles.values.contains { $0.hasSuffix("%") })
        }

        /// One host with the bus on Unix sockets (docs/deploy.md): every process of `isobar up` on
        /// `ipc://` endpoints, and a WebSocket client on the map's port holds the initial region's 85.
        @Test func wholePipelineOverUnixSockets() async throws {
            let pipeline = try await Pipeline.start(unixSockets: true)
            try await pipeline.waitUntilHealthy()
            #expect(pipeline.process.stderrText.contains("publishers connect to \(pipeline.pub), subscribers to \(pipeline.sub)"))
            _ = aliceInTheInitialRegion(pipeline, today: try Reference.records("today"))
            await pipeline.stop()
        }

        /// `isobar up --chain-format`: no `format` process; the filter writes the formatter's
        /// messages itself. A WebSocket client holds the initial region's 85, follows 40 random pans
        /// to brute force, gets precipitation titles on a field toggle and a callout on select.
        @Test func wholePipelineWithTheFormatterChained() async throws {
            let pipeline = try await Pipeline.start(extra: ["--chain-format"])
            try await pipeline.waitUntilHealthy()
            let started = pipeline.process.stderrText
            #expect(started.contains("up: started filter (pid"))
            #expect(!started.contains("up: started format"), "a format process started: \(started.suffix(2_000))")
            let today = try Reference.records("today")
            let (alice, first, initial) = aliceInTheInitialRegion(pipeline, today: today)
            var held = first
            panConverges(alice, &held, today: today, steps: 40)
            try precipitationToggleConverges(alice, &held, initial: initial)
            let id = try #require(initial.sorted().first)
            alice.send(#"{"type":"select","id":"\#(id)"}"#)
            let callout = alice.next(timeout: 30) { $0["type"] as? String == "callout" }
            #expect(callout?["id"] as? String == id)
            #expect((callout?["details"] as? [Any])?.isEmpty == false)
            await pipeline.stop()
        }

        @Test func initialRegionPansTogglesCalloutIsolationAndBadFrames() async throws {
            let pipeline = try await Pipeline.start()
            try await pipeline.waitUntilHealthy()
            let today = try Reference.records("today")
            let tomorrow = try Reference.records("tomorrow")

            // The initial region: 85 of 181 stations; 200 random pans and zooms converge to brute force.
            let (alice, first, initial) = aliceInTheInitialRegion(pipeline, today: today)
            var held = first
            panConverges(alice, &held, today: today, steps: 200)

            // Day toggle: tomorrow's set; field toggle: precipitation titles end in %.
            alice.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20, day: "tomorrow"))
            #expect(converge(alice, &held, to: Reference.visible(tomorrow, lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20)))
            try precipitationToggleConverges(alice, &held, initial: initial)
            #expect(!held.titles.values.contains { $0.hasSuffix("°") })

            // Select -> callout for this client only.
            let id = try #require(initial.sorted().first)
            alice.send(#"{"type":"select","id":"\#(id)"}"#)
            let callout = alice.next(timeout: 30) { $0["type"] as? String == "callout" }
            #expect(callout?["id"] as? String == id)
            #expect(callout?["client"] as? String == "alice")

            // A bad frame gets one error frame and the connection still works.
            alice.send("this is not json")
            let error = alice.next(timeout: 30) { $0["type"] as? String == "error" }
            #expect(error?["stage"] as? String == "gateway")
            #expect((error?["message"] as? String)?.contains("not a JSON object") == true)
            #expect(error?["excerpt"] as? String == "this is not json")
            alice.send(#"{"type":"viewport","center":{"latitude":95,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#)
            let range = alice.next(timeout: 30) { $0["type"] as? String == "error" }
            #expect((range?["message"] as? String)?.contains("latitude") == true)
            alice.send(Reference.viewport(lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20))
            #expect(converge(alice, &held, to: initial))

            // Two connections are isolated: nothing of bob's reaches alice.
            let bob = WSTestClient(port: pipeline.port)
            var bobHeld = HeldAnnotations()
            bob.send(Reference.viewport(lat: 35, lon: -100, dlat: 4, dlon: 4))
            #expect(converge(bob, &bobHeld, to: Reference.visible(today, lat: 35, lon: -100, dlat: 4, dlon: 4)))
            var leaked = 0
            while let frame = alice.next(timeout: 1) {
                // alice's own late callout updates may still come; nothing of bob's may.
                if let client = frame["client"] as? String, client != "alice" { leaked += 1 }
                held.apply(frame)
            }
            #expect(leaked == 0)
            #expect(Set(held.titles.keys) == initial)

            // /metrics names the metrics, with real numbers.
            let metrics = try HTTPProbe.get(port: pipeline.port, path: "/metrics")
            #expect(metrics.status == 200)
            for name in ["isobar_gateway_connections", "isobar_gateway_frames_in_total", "isobar_gateway_frames_out_total",
                         "isobar_gateway_errors_total", "isobar_gateway_update_latency_seconds_bucket", "isobar_gateway_data_age_seconds"] {
                #expect(metrics.body.contains(name), "\(name) missing from /metrics")
            }
            #expect(metrics.body.contains("isobar_gateway_connections 2"), "\(metrics.body)")
            #expect(metrics.body.contains(#"isobar_gateway_errors_total{reason="bad_frame"} 2"#))
            await pipeline.stop()
        }
    }
}
