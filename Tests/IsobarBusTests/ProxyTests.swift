import Foundation
import IsobarBus
import Testing

@Suite("XSUB/XPUB proxy")
struct ProxyTests {
    @Test("zmq_proxy relays messages and subscriptions, and returns when the context shuts down",
          arguments: [Transport.inproc, .tcp])
    func proxyRelays(transport: Transport) throws {
        let context = try ZMQContext()
        let frontend = try ZMQSocket(context, .xsub)
        try frontend.bind(try transport.bindEndpoint())
        let backend = try ZMQSocket(context, .xpub)
        try backend.bind(try transport.bindEndpoint())
        let frontEndpoint = try frontend.lastEndpoint()
        let backEndpoint = try backend.lastEndpoint()

        // The proxy owns both sockets from here on, on its own thread.
        let proxy = TestThread {
            do {
                try ZMQProxy.run(frontend: frontend, backend: backend)
            } catch {
                Issue.record("proxy failed: \(error)")
            }
            frontend.close()
            backend.close()
        }

        let pub = try ZMQSocket(context, .pub)
        try pub.connect(frontEndpoint)
        let sub = try ZMQSocket(context, .sub)
        try sub.subscribe("x")
        try sub.connect(backEndpoint)
        try #require(!handshake(pub: pub, sub: sub, topic: "x").isEmpty)

        for seq in 0..<1_000 {
            try pub.send(topic: seq.isMultiple(of: 2) ? "x" : "y", line: "\(seq)")
        }
        for seq in stride(from: 0, to: 1_000, by: 2) {
            let message = try #require(try sub.receiveMessage(timeout: .seconds(5)))
            #expect(message.topic == "x")
            #expect(message.payloadString == "\(seq)")
        }
        #expect(try sub.receiveMessage(timeout: .milliseconds(100)) == nil)

        context.shutdown()
        #expect(proxy.join(seconds: 5), "zmq_proxy did not return after the context was shut down")
        pub.close()
        sub.close()
    }
}
