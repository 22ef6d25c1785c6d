import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// Every limit of the gateway, enforced on a real process over real sockets.
    @Suite struct GatewayLimitTests {
        static let view = #"{"type":"viewport","center":{"latitude":40,"longitude":-100},"span":{"latitudeDelta":2,"longitudeDelta":3}}"#

        @Test func frameSizeBinaryAndBadFramesGetErrorsThenTooBigCloses1009() async throws {
            let gw = try await GatewayAlone(["--max-frame", "1024"])
            try gw.waitForBus()
            let client = WSTestClient(port: gw.port, query: "?client=big")
            client.send(#"{"type":"select","id":""# + String(repeating: "x", count: 2_000) + #""}"#)
            let tooLarge = client.next(timeout: 15)
            #expect(tooLarge?["type"] as? String == "error")
            #expect((tooLarge?["message"] as? String)?.contains("over the limit of 1024 bytes") == true)
            client.sendBinary([1, 2, 3])
            #expect((client.next(timeout: 15)?["message"] as? String)?.contains("binary frames are not accepted") == true)
            client.send(#"{"type":"annotations"}"#)
            #expect((client.next(timeout: 15)?["message"] as? String)?.contains("unknown type") == true)
            client.send(#"{"type":"select","client":"mallory","id":"x"}"#)
            #expect((client.next(timeout: 15)?["message"] as? String)?.contains("does not match") == true)
            // Still usable.
            let mark = gw.seenCount
            client.send(Self.view)
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: "big"), from: mark, timeout: 15) != nil)
            // Over the WebSocket layer's own limit (4 x 1024, at least 16 KiB): closed with 1009.
            client.send(String(repeating: " ", count: 40_000))
            #expect(client.waitForEnd(timeout: 15))
            #expect(client.closeCode == 1009)
            await gw.stop()
        }

        @Test func rateLimitErrorsThenCloses1008() async throws {
            let gw = try await GatewayAlone(["--rate", "5", "--burst", "5"])
            let client = WSTestClient(port: gw.port, query: "?client=flood")
            for _ in 0..<8 { client.send("{}") }  // 5 pass (and are bad frames), 3 are over the rate
            var rate = 0, bad = 0
            for _ in 0..<8 {
                guard let message = client.next(timeout: 15)?["message"] as? String else { break }
                if message.contains("over the limit of 5.0 messages/s") { rate += 1 } else { bad += 1 }
            }
            #expect(rate == 3 && bad == 5)
            try? await Task.sleep(for: .seconds(1.2))  // back under the limit: served again
            client.send("{}")
            #expect((client.next(timeout: 15)?["message"] as? String)?.contains("not a JSON object") == false)
            for _ in 0..<60 { client.send("{}") }
            #expect(client.waitForEnd(timeout: 15))
            #expect(client.closeCode == 1008)
            await gw.stop()
        }

        @Test func connectionLimitNameConflictsOriginAndBadNames() async throws {
            // (hummingbird-websocket's client sends `Origin: ws://127.0.0.1`.)
            let gw = try await GatewayAlone(["--max-connections", "2", "--origin", "http://127.0.0.1:8080", "--origin", "ws://127.0.0.1"])
            let one = WSTestClient(port: gw.port, query: "?client=one")
            one.send("{}")
            #expect(one.next(timeout: 15) != nil)  // registered
            let taken = try HTTPProbe.get(port: gw.port, path: "/ws?client=one", upgrade: true)
            #expect(taken.status == 409, "\(taken)")
            #expect(try HTTPProbe.get(port: gw.port, path: "/ws?client=a/b", upgrade: true).status == 400)
            let origin = try HTTPProbe.get(port: gw.port, path: "/ws?client=two", headers: ["Origin": "http://evil.example"], upgrade: true)
            #expect(origin.status == 403 && origin.body.contains("not allowed"))
            let allowed = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=two", headers: ["Origin": "http://127.0.0.1:8080"])
            defer { close(allowed.fd) }
            #expect(allowed.status == 101)
            // Handshake: the gateway's lease counts both connections (the second registers just after its 101).
            #expect(gw.waitFor(topic: "lease", timeout: 15) { $0.contains(#""clients":2"#) } != nil)
            let full = try HTTPProbe.get(port: gw.port, path: "/ws?client=three", upgrade: true)
            #expect(full.status == 503 && full.body.contains("full"), "\(full)")
            let mark = gw.seenCount
            one.close()
            #expect(one.waitForEnd(timeout: 15))
            #expect(gw.waitFor(topic: Topic.of(type: "leave", client: "one"), from: mark, timeout: 15) != nil)
            #expect(try HTTPProbe.get(port: gw.port, path: "/ws?client=three", upgrade: true).status == 101)
            await gw.stop()
        }

        @Test func tokensNameTheClient() async throws {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-tokens-\(UUID().uuidString)").path
            try "s3cret alice\n".write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let gw = try await GatewayAlone(["--token-file", file])
            try gw.waitForBus()
            #expect(try HTTPProbe.get(port: gw.port, path: "/ws", upgrade: true).status == 401)
            #expect(try HTTPProbe.get(port: gw.port, path: "/ws?token=nope", upgrade: true).status == 401)
            #expect(try HTTPProbe.get(port: gw.port, path: "/ws?token=s3cret&client=bob", upgrade: true).status == 403)
            let client = WSTestClient(port: gw.port, headers: ["Authorization": "Bearer s3cret"])
            let mark = gw.seenCount
            client.send(Self.view)
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: "alice"), from: mark, timeout: 10) != nil, "\(gw.gateway.stderrText)")
            await gw.stop()
        }

        @Test func aSlowReaderIsDisconnectedWith1013AndMemoryStaysBounded() async throws {
            let gw = try await GatewayAlone(["--max-queue", "8"])
            try gw.waitForBus()
            let fd = try HTTPProbe.openSilentWebSocket(port: gw.port, path: "/ws?client=slow")
            defer { close(fd) }
            // The flood starts once the gateway counts the client (its lease says so); a fixed
            // 0.5 s sleep raced on a loaded machine.
            try #require(gw.waitFor(topic: "lease", timeout: 60) { $0.contains(#""clients":1"#) } != nil, "the slow client was never counted: \(gw.gateway.stderrText)")
            let padding = String(repeating: "x", count: 20_000)
            for version in 1...600 {
                gw.bus.publish(#"{"type":"annotations","client":"slow","version":\#(version),"full":true,"upsert":[],"remove":[],"pad":"\#(padding)"}"#)
                if version % 50 == 0 { try? await Task.sleep(for: .seconds(0.02)) }
            }
            let closing = await gw.gateway.waitForStderr(timeout: .seconds(60)) { $0.contains("closing client") && $0.contains("client=slow") }
            #expect(closing?.contains("code=1013") == true, "\(gw.gateway.stderrText)")
            // The name is free again once the connection is dropped (at most 2 s for a client that does not read).
            let deadline = Date().addingTimeInterval(30)
            var status = 0
            while Date() < deadline {
                status = (try? HTTPProbe.get(port: gw.port, path: "/ws?client=slow", upgrade: true))?.status ?? 0
                if status == 101 { break }
                try? await Task.sleep(for: .seconds(0.2))
            }
            #expect(status == 101)
            let metrics = try HTTPProbe.get(port: gw.port, path: "/metrics")
            #expect(metrics.body.contains(#"isobar_gateway_errors_total{reason="slow_reader"} 1"#))
            await gw.stop()
        }

        @Test func aPeerThatDoesNotAnswerPingsIsDropped() async throws {
            let gw = try await GatewayAlone(["--ping", "0.3"])
            try gw.waitForBus()
            // A live client answers the pings (hummingbird-websocket's client does) and stays.
            let live = WSTestClient(port: gw.port, query: "?client=live")
            live.send("{}")
            #expect(live.next(timeout: 15)?["type"] as? String == "error")
            // A peer that upgrades and then never reads or answers: closed (1001, by
            // hummingbird-websocket's auto-ping) once a ping goes unanswered for a ping interval.
            let mark = gw.seenCount
            let opened = Date()
            let fd = try HTTPProbe.openSilentWebSocket(port: gw.port, path: "/ws?client=mute")
            defer { close(fd) }
            let leave = gw.waitFor(topic: Topic.of(type: "leave", client: "mute"), from: mark, timeout: 15)
            let after = Date().timeIntervalSince(opened)
            #expect(leave != nil, "\(gw.gateway.stderrText)")
            // Pinged after 3 intervals of silence (0.9 s), dropped an interval after that.
            #expect(after >= 1.2, "dropped after \(after) s, before the probe time and a ping interval")
            print("limits: a peer that does not answer pings (--ping 0.3) left after \(String(format: "%.2f", after)) s")
            #expect(!live.isEnded, "the live client was dropped too: \(String(describing: live.closeCode))")
            await gw.stop()
        }

        @Test func aSilentPeerGetsTwoKeepalivePongsThenAPingThenA1001() async throws {
            // What a silent peer reads (it never answers): an unsolicited pong (RFC 6455 5.5.3) each
            // interval, every third keepalive a ping, and the close an interval after that ping;
            // each control frame empty, as the gateway pre-encodes them.
            let gw = try await GatewayAlone(["--ping", "1"])
            try gw.waitForBus()
            let (fd, status) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=quiet")
            defer { close(fd) }
            #expect(status == 101)
            let frames = (0..<4).compactMap { _ in RawFrames.read(fd) }
            #expect(frames.map(\.opcode) == [0xA, 0xA, 0x9, 0x8], "\(frames)")
            #expect(frames.prefix(3).allSatisfy { $0.fin && $0.payload.isEmpty })
            #expect(frames.last?.closeCode == 1001)
            #expect(RawFrames.atEnd(fd))
            await gw.stop()
        }

        @Test func remoteListenNeedsAllowRemote() async throws {
            let refused = try await ProcessHarness.isobar(["gateway", "--listen", "0.0.0.0:0"])
            #expect(await refused.waitForExit(timeout: .seconds(10)) == .exited(64))
            #expect(await refused.waitForStderr(containing: "--allow-remote", timeout: .seconds(5)) != nil, "\(refused.stderrText)")
        }
    }
}
