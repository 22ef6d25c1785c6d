import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// Attacks on the WebSocket side of a real gateway over raw sockets (issue 27): a ping flood from
    /// a peer that does not read, frames that break RFC 6455 (reserved bits, no mask), a name left
    /// by a FIN, and viewport versions at the edge of what the stages take.
    @Suite struct GatewayWebSocketAttackTests {
        /// One ping's data: the most a control frame may carry.
        static let pingData = [UInt8](repeating: 0x70, count: 125)

        /// The frames the gateway sent, up to and including its close frame (nil when the stream
        /// ended without one).
        static func readUntilClose(_ fd: Int32) -> (pongs: Int, close: RawFrames.Frame?) {
            var pongs = 0
            while let frame = RawFrames.read(fd) {
                if frame.opcode == 0xA { pongs += 1 }
                if frame.opcode == 0x8 { return (pongs, frame) }
            }
            return (pongs, nil)
        }

        /// The value of a metric's line (`name{labels}` as exposed), or nil when it is not there.
        static func metric(_ gw: GatewayAlone, _ name: String) throws -> Int? {
            let body = try HTTPProbe.get(port: gw.port, path: "/metrics").body
            let line = body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) }
        }

        @Test func aPingFloodIsRateLimitedAndClosed1008() async throws {
            let gw = try await GatewayAlone(["--rate", "20", "--burst", "40"])
            let (fd, status) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=pinger")
            defer { close(fd) }
            #expect(status == 101)
            // 3,000 pings (390 KB) at once, nothing read meanwhile.
            RawFrames.sendAll(fd, (0..<3_000).flatMap { _ in RawFrames.encode(opcode: 0x9, Self.pingData) })
            let (pongs, close) = Self.readUntilClose(fd)
            // The burst's 40 are answered, no more; the rest are over the rate, and the peer that
            // keeps at it is closed with 1008.
            #expect(pongs <= 41, "\(pongs) pongs")
            #expect(close?.closeCode == 1008, "\(String(describing: close))")
            #expect(try Self.metric(gw, #"isobar_gateway_errors_total{reason="rate_close"}"#) == 1)
            #expect(try Self.metric(gw, #"isobar_gateway_errors_total{reason="control_rate"}"#) ?? 0 >= 40)
            await gw.stop()
        }

        @Test func pongsToAPeerThatDoesNotReadAreCoalesced() async throws {
            // A rate high enough for every ping: only the pongs' own bound is at work.
            let gw = try await GatewayAlone(["--rate", "1000000", "--burst", "1000000"])
            let fd = try HTTPProbe.connect(port: gw.port, receiveBuffer: 4096)
            defer { close(fd) }
            try HTTPProbe.send(fd, HTTPProbe.request(path: "/ws?client=deaf", headers: [:], upgrade: true))
            // 60,000 pings (7.8 MB) while reading nothing, then a close: more than the kernel's
            // socket buffers on loopback hold (4 MB at most for sending, here).
            let count = 60_000
            RawFrames.sendAll(fd, (0..<count).flatMap { _ in RawFrames.encode(opcode: 0x9, Self.pingData) })
            RawFrames.send(fd, opcode: 0x8, [0x03, 0xE8])
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while HTTPProbe.headEnd(head) == nil, recv(fd, &byte, 1, 0) == 1 { head.append(byte) }
            let (pongs, close) = Self.readUntilClose(fd)
            // Once the socket took no more, each ping replaced the one waiting answer instead of
            // queueing its own: every ping was answered or replaced (but the one waiting when the
            // close came), none piled up.
            #expect(close?.closeCode == 1000)
            let replaced = try Self.metric(gw, "isobar_gateway_pongs_coalesced_total") ?? 0
            #expect(replaced > 0 && (count - 1...count).contains(pongs + replaced), "\(pongs) pongs, \(replaced) replaced")
            await gw.stop()
        }

        @Test func reservedBitsAndUnmaskedFramesClose1002() async throws {
            let gw = try await GatewayAlone([])
            for (name, rsv, masked) in [("rsv1", UInt8(0x40), true), ("rsv3", UInt8(0x10), true), ("unmasked", UInt8(0), false)] {
                let (fd, status) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=\(name)")
                defer { close(fd) }
                #expect(status == 101)
                RawFrames.send(fd, rsv: rsv, opcode: 0x1, masked: masked, Array(GatewayLimitTests.view.utf8))
                let answer = RawFrames.readSkippingPings(fd)
                #expect(answer?.opcode == 0x8, "\(name)")
                #expect(answer?.closeCode == 1002, "\(name): \(String(describing: answer))")
            }
            // A masked frame with no reserved bit is still fine.
            let (fd, _) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=plain")
            defer { close(fd) }
            RawFrames.send(fd, opcode: 0x1, Array("{}".utf8))
            #expect(RawFrames.readSkippingPings(fd)?.opcode == 0x1)
            await gw.stop()
        }

        @Test func aNameLeftByAFinIsFreeAtOnce() async throws {
            // Pings every 60 s: the name must not wait for the liveness check.
            let gw = try await GatewayAlone(["--ping", "60"])
            try gw.waitForBus()
            let (fd, status) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=finner")
            defer { close(fd) }
            #expect(status == 101)
            #expect(gw.waitFor(topic: "lease", timeout: 15) { $0.contains(#""clients":1"#) } != nil)
            let mark = gw.seenCount
            shutdown(fd, Int32(SHUT_WR))  // FIN, no close frame
            #expect(gw.waitFor(topic: Topic.of(type: "leave", client: "finner"), from: mark, timeout: 10) != nil,
                    "the name stayed taken after a FIN")
            let again = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=finner")
            defer { close(again.fd) }
            #expect(again.status == 101)
            await gw.stop()
        }

        @Test func viewportVersionsOverTheLimitAreRefusedAndNeverRelayedBack() async throws {
            let gw = try await GatewayAlone([])
            try gw.waitForBus()
            let client = WSTestClient(port: gw.port, query: "?client=edge")
            let view = String(GatewayLimitTests.view.dropLast())
            // The issue's value: accepted before, then the next version (9e15) was refused downstream.
            client.send(view + #","version":8999999999999999}"#)
            let refused = client.next(timeout: 15)
            #expect(refused?["type"] as? String == "error")
            #expect((refused?["message"] as? String)?.contains("version 8999999999999999 is over the limit of 1000000000000000") == true,
                    "\(String(describing: refused))")
            // The largest accepted version goes through as it is.
            var mark = gw.seenCount
            client.send(view + #","version":1000000000000000}"#)
            let accepted = gw.waitFor(topic: Topic.of(type: "viewport", client: "edge"), from: mark, timeout: 15)
            #expect(accepted?.contains(#""version":1000000000000000"#) == true, "\(accepted ?? "nothing")")
            // A version over the limit relayed from the bus (forged) is never filled into a viewport.
            gw.bus.publish(#"{"type":"annotations","client":"edge","version":8999999999999998,"full":true,"upsert":[],"remove":[]}"#)
            #expect(client.next(timeout: 15)?["version"] as? Int == 8999999999999998)
            mark = gw.seenCount
            client.send(GatewayLimitTests.view)
            let published = gw.waitFor(topic: Topic.of(type: "viewport", client: "edge"), from: mark, timeout: 15)
            #expect(published != nil && published?.contains(#""version""#) == false, "\(published ?? "nothing")")
            await gw.stop()
        }
    }
}
