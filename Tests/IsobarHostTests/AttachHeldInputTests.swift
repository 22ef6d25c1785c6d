import Foundation
import IsobarBus
import IsobarBusClient
import IsobarCore
import IsobarStdio
import Synchronization
import Testing
@testable import IsobarHost

/// `isobar attach`'s input before the filter's first answer, with a real in-process broker: lines
/// are held (the input loop never blocks) and sent in order when the first answer comes, or at end
/// of input after the first-answer deadline.
@Suite(.serialized) struct AttachHeldInputTests {
    /// What a bus subscriber received, in order.
    final class Received: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: [UInt8]) { lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Whether `condition` holds within `seconds`.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    static func session(_ broker: InProcessBroker) throws -> AttachSession {
        let region = try Region(center: Coordinate(latitude: 40, longitude: -100), latitudeDelta: 10, longitudeDelta: 10)
        return try AttachSession(client: "alice", initial: Viewport(client: "alice", region: region),
                                 endpoints: BrokerEndpoints(frontend: broker.frontend, backend: broker.backend))
    }

    /// Subscribes to the `select` and `nearest` topics (what the filter would take from attach).
    static func listener(_ broker: InProcessBroker, into received: Received) throws -> BusClient {
        let client = try BusClient(endpoints: BrokerEndpoints(frontend: broker.frontend, backend: broker.backend), topics: ["select", "nearest"])
        client.start { _, payload in received.append(payload) }
        return client
    }

    static func input(_ session: AttachSession, _ line: String) {
        Array(line.utf8).withUnsafeBytes { session.publishFromInput($0) }
    }

    /// What another client's `select` probe looks like to the listener.
    static let probe = #"{"type":"select","client":"probe","id":"P"}"#

    /// Publishes `probe` from `publisher` until the listener hears it: the listener's subscription
    /// has then reached the broker, which hands it to every publisher, one that connects later too.
    /// (A session's held lines are sent once; sent before that, they would go nowhere.)
    static func waitUntilListening(_ received: Received, probedBy publisher: BusClient) -> Bool {
        eventually(10) {
            _ = publisher.publish(probe)
            return !received.all.isEmpty
        }
    }

    /// What the listener heard from alice (the probes left out).
    static func fromAlice(_ received: Received) -> [String] {
        received.all.filter { $0 != probe }
    }

    /// A bus client that hears the viewports (as the filter does): once it has heard the session's,
    /// the session's publisher is connected to the broker and has its subscribers.
    static func viewportWatcher(_ broker: InProcessBroker, into viewports: Received) throws -> BusClient {
        let client = try BusClient(endpoints: BrokerEndpoints(frontend: broker.frontend, backend: broker.backend), topics: ["viewport/"])
        client.start { _, payload in viewports.append(payload) }
        return client
    }

    @Test func inputIsHeldUntilTheFirstAnswerThenSentInOrder() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let received = Received()
        let listener = try Self.listener(broker, into: received)
        defer { listener.close() }
        // The filter: it hears viewports, and answers only once it has heard the session's (as the
        // real one does), so the session's publisher is connected when its held lines leave.
        let viewports = Received()
        let filter = try Self.viewportWatcher(broker, into: viewports)
        defer { filter.close() }
        try #require(Self.waitUntilListening(received, probedBy: filter), "the listener never heard a probe")
        let session = try Self.session(broker)
        defer { session.close() }
        session.start()
        Self.input(session, #"{"type":"select","id":"K1D3"}"#)
        Self.input(session, #"{"type":"nearest","latitude":48.7,"longitude":21.25}"#)
        #expect(session.heldInput == 2)
        try #require(Self.eventually(10) { !viewports.all.isEmpty }, "the filter never heard the session's viewport")
        // The filter's first answer (repeated: a PUB that has just connected drops what it sends).
        #expect(Self.eventually(10) {
            _ = filter.publish(#"{"type":"annotations","client":"alice","version":1,"full":true,"upsert":[],"remove":[]}"#)
            return session.heldInput == 0
        })
        #expect(Self.eventually(10) { Self.fromAlice(received).count >= 2 }, "\(received.all)")
        #expect(Self.fromAlice(received) == [
            #"{"client":"alice","type":"select","id":"K1D3"}"#,
            #"{"client":"alice","type":"nearest","latitude":48.7,"longitude":21.25}"#,
        ])
    }

    @Test func atEndOfInputHeldLinesAreSentAfterTheFirstAnswerDeadline() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let received = Received()
        let listener = try Self.listener(broker, into: received)
        defer { listener.close() }
        // No filter answers here; this client only hears the viewports (and probes the listener).
        let viewports = Received()
        let watcher = try Self.viewportWatcher(broker, into: viewports)
        defer { watcher.close() }
        try #require(Self.waitUntilListening(received, probedBy: watcher), "the listener never heard a probe")
        let session = try Self.session(broker)
        defer { session.close() }
        session.start()
        Self.input(session, #"{"type":"select","id":"K1D3"}"#)
        #expect(session.heldInput == 1)
        // The held line is sent once, 0.2 s from here: only once the session's publisher is
        // connected (its viewport heard), else it would go nowhere.
        try #require(Self.eventually(10) { !viewports.all.isEmpty }, "nobody heard the session's viewport")
        #expect(session.finishInput(stop: StopFlag(), timeout: 0.2) == false)
        #expect(session.heldInput == 0)
        #expect(Self.eventually(10) { !Self.fromAlice(received).isEmpty })
        #expect(Self.fromAlice(received) == [#"{"client":"alice","type":"select","id":"K1D3"}"#])
    }

    @Test func aStopEndsTheWaitAtEndOfInputAtOnce() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let session = try Self.session(broker)
        defer { session.close() }
        session.start()
        Self.input(session, #"{"type":"select","id":"K1D3"}"#)
        let stop = StopFlag()
        stop.raise()
        #expect(session.finishInput(stop: stop, timeout: 3600) == false)
        #expect(session.heldInput == 1)
    }
}
