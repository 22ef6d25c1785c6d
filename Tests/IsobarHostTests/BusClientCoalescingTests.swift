import Foundation
import IsobarBus
import IsobarBusClient
import IsobarCore
import Synchronization
import Testing
@testable import IsobarHost

/// Coalescing on the bus through a real broker: `BusClient.publish(lines:)` sends lines of several
/// clients under the group frame `annotations/` while every subscriber takes the whole group, a
/// receiving `BusClient` hands each line out under its own topic, and a narrower subscriber
/// (`annotations/alice`, as `isobar attach` subscribes) turns the group off so it misses nothing.
@Suite(.serialized) struct BusClientCoalescingTests {
    /// (topic, line) pairs a bus client received, in order.
    final class Received: Sendable {
        private let pairs = Mutex<[String]>([])
        func append(_ topic: String, _ line: [UInt8]) { pairs.withLock { $0.append(topic + " " + String(decoding: line, as: UTF8.self)) } }
        var all: [String] { pairs.withLock { $0 } }
    }

    static let lines = [#"{"type":"annotations","client":"alice","version":1}"#,
                        #"{"type":"annotations","client":"bob","version":1}"#]

    /// Publishes `lines` until `raw` (a SUB of `annotations/`) receives a message; returns its frames.
    static func firstFrames(_ publisher: BusClient, _ raw: ZMQSocket) throws -> [String] {
        for _ in 0..<500 {
            publisher.publish(lines: lines.map { Array($0.utf8) })
            if let message = try raw.receiveMessage(timeout: .milliseconds(20)) {
                return message.frames.map { String(decoding: $0, as: UTF8.self) }
            }
        }
        return []
    }

    /// A broker, a raw SUB socket of `annotations/` on it (to see the frames as sent), a bus client
    /// subscribed to `topics` recording what it hears, and a bus client that publishes; `body`
    /// runs with them and everything is closed after.
    static func withBus(subscribing topics: [String],
                        _ body: (_ raw: ZMQSocket, _ received: Received, _ publisher: BusClient) throws -> Void) throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let endpoints = BrokerEndpoints(frontend: broker.frontend, backend: broker.backend)
        let context = try ZMQContext()
        let raw = try ZMQSocket(context, .sub)
        defer { raw.close() }
        try raw.subscribe("annotations/")
        try raw.connect(broker.backend)
        let received = Received()
        let listener = try BusClient(endpoints: endpoints, topics: topics)
        defer { listener.close() }
        listener.start { topic, line in received.append(topic, line) }
        let publisher = try BusClient(endpoints: endpoints, topics: [])
        defer { publisher.close() }
        try body(raw, received, publisher)
    }

    @Test func aGroupFrameReachesAWideSubscriberAndIsSplitByTopic() throws {
        try Self.withBus(subscribing: ["annotations/"]) { raw, received, publisher in
            let frames = try Self.firstFrames(publisher, raw)
            #expect(frames == ["annotations/", Self.lines.joined(separator: "\n")])
            // The raw socket hearing a frame does not mean the listener's subscription has reached
            // the broker yet: keep publishing until the listener hears one. Each publish is one
            // message (alice then bob), so its first two lines are still in that order.
            #expect(AttachHeldInputTests.eventually(10) {
                if received.all.count < 2 { publisher.publish(lines: Self.lines.map { Array($0.utf8) }) }
                return received.all.count >= 2
            })
            #expect(Array(received.all.prefix(2)) == ["annotations/alice " + Self.lines[0], "annotations/bob " + Self.lines[1]])
        }
    }

    @Test func aNarrowerSubscriberTurnsTheGroupOffAndGetsItsLine() throws {
        try Self.withBus(subscribing: ["annotations/alice"]) { raw, received, publisher in
            // Alice hears her line only once her subscription has reached the publisher, which from
            // then on sends no group frame. The raw socket must be heard from too: its subscription
            // travels on its own connection, and until it reaches the publisher nothing of bob's
            // leaves there (alice's narrower one does not match it).
            var rawHeard = false
            #expect(AttachHeldInputTests.eventually(10) {
                publisher.publish(lines: Self.lines.map { Array($0.utf8) })
                if !rawHeard, (try? raw.receiveMessageNonBlocking()) != nil { rawHeard = true }
                return !received.all.isEmpty && rawHeard
            })
            let second = Self.lines.map { $0.replacingOccurrences(of: #""version":1"#, with: #""version":2"#) }
            publisher.publish(lines: second.map { Array($0.utf8) })
            var frames: [[String]] = []
            while frames.count < 2, let message = try raw.receiveMessage(timeout: .seconds(5)) {
                let texts = message.frames.map { String(decoding: $0, as: UTF8.self) }
                if texts.last?.contains(#""version":2"#) == true { frames.append(texts) }
            }
            #expect(frames == [["annotations/alice", second[0]], ["annotations/bob", second[1]]])
            #expect(received.all.allSatisfy { $0.hasPrefix("annotations/alice " + #"{"type":"annotations","client":"alice","#) })
        }
    }
}
