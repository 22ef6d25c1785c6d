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

    @Test func inputIsHeldUntilTheFirstAnswerThenSentInOrder() throws {
        let broker = try InProcessBroker(curve: nil, logger: CollectedLogs().logger)
        defer { broker.stop() }
        let received = Received()
        let listener = try Self.listener(broker, into: received)
        defer { listener.close() }
        let filter = try BusClient(endpoints: BrokerEndpoints(frontend: broker.frontend, backend: broker.backend), topics: [])
        defer { filter.close() }
        let session = try Self.session(broker)
        defer { session.close() }
        session.start()
        Self.input(session, #"{"type":"select","id":"K1D3"}"#)
        Self.input(session, #"{"type":"nearest","latitude":48.7,"longitude":21.25}"#)
        #expect(session.heldInput == 2)
        // The filter's first answer (repeated: a PUB that has just connected drops what it sends).
        #expect(Self.eventually(10) {
            _ = filter.publish(#"{"type":"annotations","client":"alice","version":1,"full":true,"upsert":[],"remove":[]}"#)
            return session.heldInput == 0
        })
        #expect(Self.eventually(10) { received.all.count >= 2 }, "\(received.all)")
        #expect(received.all == [
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
        let session = try Self.session(broker)
        defer { session.close() }
        session.start()
        Self.input(session, #"{"type":"select","id":"K1D3"}"#)
        #expect(session.heldInput == 1)
        #expect(session.finishInput(stop: StopFlag(), timeout: 0.2) == false)
        #expect(session.heldInput == 0)
        #expect(Self.eventually(10) { !received.all.isEmpty })
        #expect(received.all == [#"{"client":"alice","type":"select","id":"K1D3"}"#])
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
