import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// The WebSocket protocol as the gateway speaks it, frame by frame over a raw socket:
    /// fragmented messages, pings from the app, the close handshake both ways, a bad fragment
    /// sequence (PROTOCOL.md, "Gateway": close codes, fragments and control frames).
    @Suite struct GatewayFrameTests {
        @Test func fragmentsAreJoinedPingsAnsweredAndACloseIsAnsweredWithItsCode() async throws {
            let gw = try await GatewayAlone([])
            try gw.waitForBus()
            let (fd, status) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=frag")
            defer { close(fd) }
            #expect(status == 101)
            // A message in three fragments is one message: a viewport reaches the bus whole.
            let viewport = Array(GatewayLimitTests.view.utf8)
            let mark = gw.seenCount
            RawFrames.send(fd, fin: false, opcode: 0x1, Array(viewport[..<10]))
            RawFrames.send(fd, fin: false, opcode: 0x0, Array(viewport[10..<40]))
            RawFrames.send(fd, fin: true, opcode: 0x0, Array(viewport[40...]))
            let published = gw.waitFor(topic: Topic.of(type: "viewport", client: "frag"), from: mark, timeout: 15)
            #expect(published?.contains(#""latitudeDelta":2"#) == true, "\(published ?? "nothing")")
            // A bad message in fragments gets one error frame about the whole message.
            RawFrames.send(fd, fin: false, opcode: 0x1, Array(#"{"type":"#.utf8))
            RawFrames.send(fd, fin: true, opcode: 0x0, Array(#""nonsense"}"#.utf8))
            let error = RawFrames.readSkippingPings(fd)
            #expect(error?.opcode == 0x1)
            #expect(error?.text.contains(#"unknown type \"nonsense\""#) == true, "\(error?.text ?? "nothing")")
            // A ping with data gets a pong with the same data.
            RawFrames.send(fd, opcode: 0x9, Array("are you there".utf8))
            let pong = RawFrames.readSkippingPings(fd)
            #expect(pong == .init(fin: true, opcode: 0xA, payload: Array("are you there".utf8)))
            // A close with 1000 is answered with 1000, then the connection ends and the client leaves.
            let before = gw.seenCount
            RawFrames.send(fd, opcode: 0x8, [0x03, 0xE8] + Array("bye".utf8))
            let answer = RawFrames.readSkippingPings(fd)
            #expect(answer?.opcode == 0x8)
            #expect(answer?.closeCode == 1000)
            #expect(RawFrames.atEnd(fd))
            #expect(gw.waitFor(topic: Topic.of(type: "leave", client: "frag"), from: before, timeout: 15) != nil)
            await gw.stop()
        }

        @Test func aContinuationWithNoMessageBegunCloses1002() async throws {
            let gw = try await GatewayAlone([])
            try gw.waitForBus()
            let (fd, status) = try HTTPProbe.openWebSocket(port: gw.port, path: "/ws?client=badseq")
            defer { close(fd) }
            #expect(status == 101)
            RawFrames.send(fd, fin: true, opcode: 0x0, Array("stray".utf8))
            let answer = RawFrames.readSkippingPings(fd)
            #expect(answer?.opcode == 0x8)
            #expect(answer?.closeCode == 1002)
            // The app does not answer: the gateway drops the connection itself (2 s).
            #expect(RawFrames.atEnd(fd))
            await gw.stop()
        }
    }
}
