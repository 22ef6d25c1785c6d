import Foundation
import IsobarBus
import Testing

@Suite("PUB -> SUB")
struct PubSubTests {
    @Test("10,000 two-frame messages arrive intact and in order", arguments: Transport.allCases)
    func streamArrivesInOrder(transport: Transport) throws {
        let pair = try PubSubPair(transport, subscriptions: ["data"])
        defer { pair.close() }
        try #require(!handshake(pub: pair.pub, sub: pair.sub, topic: "data").isEmpty)

        let count = 10_000
        for seq in 0..<count {
            try pair.pub.send(topic: "data", line: #"{"type":"data","seq":\#(seq)}"#)
        }
        for seq in 0..<count {
            let message = try #require(try pair.sub.receiveMessage(timeout: .seconds(5)), "message \(seq) never arrived")
            #expect(message.frames.count == 2)
            #expect(message.topic == "data")
            guard message.payloadString == #"{"type":"data","seq":\#(seq)}"# else {
                Issue.record("expected seq \(seq), got \(message.payloadString)")
                return
            }
        }
        #expect(try pair.sub.receiveMessageNonBlocking() == nil)
    }

    @Test("receiveInPlace shows the first two frames without copying and counts the rest")
    func receiveInPlaceFrames() throws {
        let pair = try PubSubPair(.inproc, subscriptions: ["t"])
        defer { pair.close() }
        try #require(!handshake(pub: pair.pub, sub: pair.sub, topic: "t").isEmpty)
        try pair.pub.send(topic: "t1", line: #"{"a":1}"#)
        try pair.pub.send(Array("t2".utf8))
        try pair.pub.send(Array("t3".utf8), more: true)
        try pair.pub.send(Array("x".utf8), more: true)
        try pair.pub.send(Array("y".utf8), more: true)
        try pair.pub.send([UInt8]())
        try pair.pub.send(topic: "t4", payload: [UInt8]())
        var seen: [String] = []
        while seen.count < 4 {
            try #require(try ZMQPoll.poll([.socket(pair.sub, .readable)], timeout: .seconds(5)).first?.contains(.readable) == true)
            let got = try pair.sub.receiveInPlace(blocking: false) { count, first, second in
                "\(count) \(String(decoding: first, as: UTF8.self)) [\(String(decoding: second, as: UTF8.self))]"
            }
            if let got { seen.append(got) }
        }
        #expect(seen == ["2 t1 [{\"a\":1}]", "1 t2 []", "4 t3 [x]", "2 t4 []"])
        #expect(try pair.sub.receiveInPlace(blocking: false) { count, _, _ in count } == nil)
    }

    @Test("a subscriber receives only topics that start with its subscription")
    func topicPrefixFiltering() throws {
        let pair = try PubSubPair(.tcp, subscriptions: ["annotations/alice"])
        try #require(!handshake(pub: pair.pub, sub: pair.sub, topic: "annotations/alice").isEmpty)

        for topic in ["annotations/bob", "annotations/alice", "viewport", "annotations", "annotations/alice-2"] {
            try pair.pub.send(topic: topic, line: #"{"topic":"\#(topic)"}"#)
        }
        try pair.pub.send(topic: "annotations/alice", line: "end")

        var topics: [String] = []
        while let message = try pair.sub.receiveMessage(timeout: .seconds(5)) {
            if message.payloadString == "end" { break }
            topics.append(message.topic)
        }
        // Prefix matching: "annotations/alice-2" matches too, which is why topics end at the client name.
        #expect(topics == ["annotations/alice", "annotations/alice-2"])
    }

    @Test("binary and empty frames survive, and single-frame messages are delivered whole")
    func framesAreByteExact() throws {
        let pair = try PubSubPair(.inproc, subscriptions: [""])
        try #require(!handshake(pub: pair.pub, sub: pair.sub, topic: "p").isEmpty)
        let binary: [UInt8] = [0, 1, 2, 0xFF, 0x0A, 0x0D, 0]
        try pair.pub.send(topic: "bin", payload: binary)
        try pair.pub.send(topic: "empty", payload: [])
        try pair.pub.send("single")
        try pair.pub.send("a", more: true)
        try pair.pub.send("b", more: true)
        try pair.pub.send("c")

        #expect(try pair.sub.receiveMessage(timeout: .seconds(5)) == ZMQMessage(frames: [Array("bin".utf8), binary]))
        #expect(try pair.sub.receiveMessage(timeout: .seconds(5)) == ZMQMessage(frames: [Array("empty".utf8), []]))
        let single = try #require(try pair.sub.receiveMessage(timeout: .seconds(5)))
        #expect(single.frames == [Array("single".utf8)])
        #expect(!single.isTopicAndPayload)
        #expect(single.payload == [])
        let three = try #require(try pair.sub.receiveMessage(timeout: .seconds(5)))
        #expect(three.frames.map { String(decoding: $0, as: UTF8.self) } == ["a", "b", "c"])
    }

    @Test("receive with a timeout returns nil after about the timeout; non-blocking returns at once")
    func receiveTimeouts() throws {
        let pair = try PubSubPair(.inproc, subscriptions: [""])
        #expect(try pair.sub.receiveMessageNonBlocking() == nil)
        let start = ContinuousClock.now
        #expect(try pair.sub.receiveMessage(timeout: .milliseconds(100)) == nil)
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(95))
        #expect(elapsed < .seconds(5))
    }

    @Test("lastEndpoint reports the ephemeral tcp port actually bound")
    func lastEndpointReportsPort() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .pub)
        try socket.bind("tcp://127.0.0.1:*")
        let endpoint = try socket.lastEndpoint()
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        let port = Int(endpoint.split(separator: ":").last ?? "")
        #expect((port ?? 0) > 0)
    }
}
