import Foundation
import IsobarBus
import Testing

@Suite("limits and shutdown")
struct SocketLimitTests {
    @Test("a publisher that sends an over-MAXMSGSIZE message is disconnected; it reconnects and later messages arrive")
    func maxMessageSizeDropsOversized() throws {
        // The broker's shape: the receiving side binds, the publisher connects. libzmq treats an oversized
        // frame as a protocol error and drops the connection; the connecting publisher sees the
        // disconnect and reconnects after RECONNECT_IVL, and the subscription is sent again.
        let context = try ZMQContext()
        let sub = try ZMQSocket(context, .sub)
        try sub.subscribe("t")
        try sub.bind("tcp://127.0.0.1:*")
        let pub = try ZMQSocket(context, .pub)
        try pub.connect(try sub.lastEndpoint())
        try #require(!handshake(pub: pub, sub: sub, topic: "t").isEmpty)

        let limit = ZMQSocketOption.defaultMaxMessageSize
        try pub.send(topic: "t", payload: [UInt8](repeating: 0x61, count: limit + 1))
        let afterwards = try handshake(pub: pub, sub: sub, topic: "t")
        #expect(!afterwards.isEmpty)
        #expect(afterwards.allSatisfy { $0.payload.count < 100 }, "the oversized message was delivered")
        let fits = [UInt8](repeating: 0x62, count: 1 << 20)
        try pub.send(topic: "t", payload: fits)
        let message = try #require(try sub.receiveMessage(timeout: .seconds(5)))
        #expect(message.payload == fits)
        #expect(try sub.receiveMessage(timeout: .milliseconds(100)) == nil)
    }

    @Test("XPUB with NODROP refuses a non-blocking send at the high-water mark instead of dropping")
    func xpubNoDropReportsBackpressure() throws {
        let context = try ZMQContext()
        let xpub = try ZMQSocket(context, .xpub, options: ZMQSocketOption.defaults + [
            .sendHighWaterMark(10), .xpubNoDrop(true),
        ])
        try xpub.bind("inproc://nodrop-\(UUID().uuidString)")
        let sub = try ZMQSocket(context, .sub, options: ZMQSocketOption.defaults + [.receiveHighWaterMark(10)])
        try sub.subscribe("")
        try sub.connect(try xpub.lastEndpoint())
        // XPUB receives the subscription as a message: once it has it, the pipe exists.
        let subscription = try #require(try xpub.receiveMessage(timeout: .seconds(5)))
        #expect(subscription.frames.first?.first == 1)

        var accepted = 0
        while try xpub.send(topic: "t", line: "\(accepted)", blocking: false) {
            accepted += 1
            if accepted > 10_000 { break }
        }
        #expect(accepted >= 10 && accepted < 10_000)
        // Everything accepted is delivered.
        for n in 0..<accepted {
            #expect(try sub.receiveMessage(timeout: .seconds(5))?.payloadString == "\(n)")
        }
    }

    @Test("context shutdown ends a receive loop blocked on a dedicated thread")
    func shutdownStopsReceiveLoop() throws {
        let context = try ZMQContext()
        let sub = try ZMQSocket(context, .sub)
        try sub.subscribe("")
        try sub.connect("tcp://127.0.0.1:1") // nothing listens there: it just keeps reconnecting
        let loop = TestThread {
            do {
                while true { _ = try sub.receiveMessage() }
            } catch {
                #expect((error as? ZMQError)?.isTerminated == true)
            }
            sub.close()
        }
        context.shutdown()
        #expect(loop.join(seconds: 5))
    }
}
