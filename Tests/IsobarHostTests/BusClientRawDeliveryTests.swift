import Foundation
import IsobarBus
import IsobarBusClient
import IsobarCore
import Synchronization
import Testing

/// `BusClient.startInPlace(onLine:)` (each line's topic and bytes in place) through a real broker: a
/// batched message, a group frame (with a line outside its group) and a one-line message each
/// reach it as exactly the topics and lines `start(onMessage:)` hands out, and both are the lines
/// sent, in order.
@Suite(.serialized) struct BusClientRawDeliveryTests {
    /// "topic line" texts a bus client received, in order.
    final class Heard: Sendable {
        private let texts = Mutex<[String]>([])
        func append(_ topic: String, _ line: String) { texts.withLock { $0.append(topic + " " + line) } }
        var all: [String] { texts.withLock { $0 } }
    }

    static func line(_ client: String, _ version: Int) -> String {
        #"{"type":"annotations","client":"\#(client)","version":\#(version)}"#
    }

    @Test func rawLinesAreTheLinesTheStringPathHandsOut() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let endpoints = BrokerEndpoints(frontend: broker.frontend, backend: broker.backend)
        let strings = Heard(), raw = Heard()
        let stringClient = try BusClient(endpoints: endpoints, topics: ["annotations/"])
        defer { stringClient.close() }
        stringClient.start(onMessage: { topic, line in strings.append(topic, String(decoding: line, as: UTF8.self)) })
        let rawClient = try BusClient(endpoints: endpoints, topics: ["annotations/"])
        defer { rawClient.close() }
        rawClient.startInPlace(onLine: { topic, line in
            raw.append(String(decoding: topic, as: UTF8.self), String(decoding: line, as: UTF8.self))
        })
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        defer { publisher.close() }
        try publisher.connect(broker.frontend)

        // Until both subscriptions have reached the broker: a marker each hears.
        let sync = Self.line("sync", 0)
        #expect(AttachHeldInputTests.eventually(10) {
            _ = try? publisher.send(topic: "annotations/sync", line: sync)
            return !strings.all.isEmpty && !raw.all.isEmpty
        })
        // Then, in order: two lines of one topic batched, a group frame of two clients' lines and
        // one of another type (outside the group: dropped), a one-line message, and an end mark.
        try publisher.send(topic: "annotations/alice", line: Self.line("alice", 1) + "\n" + Self.line("alice", 2))
        try publisher.send(topic: "annotations/",
                           line: [Self.line("alice", 3), #"{"type":"annotationsx","client":"carol"}"#, Self.line("bob", 1)].joined(separator: "\n"))
        try publisher.send(topic: "annotations/bob", line: Self.line("bob", 2))
        try publisher.send(topic: "annotations/end", line: Self.line("end", 0))
        #expect(AttachHeldInputTests.eventually(10) {
            strings.all.last == "annotations/end " + Self.line("end", 0) && raw.all.last == "annotations/end " + Self.line("end", 0)
        })

        let expected = ["annotations/alice " + Self.line("alice", 1), "annotations/alice " + Self.line("alice", 2),
                        "annotations/alice " + Self.line("alice", 3), "annotations/bob " + Self.line("bob", 1),
                        "annotations/bob " + Self.line("bob", 2), "annotations/end " + Self.line("end", 0)]
        let syncText = "annotations/sync " + sync
        #expect(raw.all.filter { $0 != syncText } == expected)
        #expect(strings.all.filter { $0 != syncText } == expected)
    }
}
