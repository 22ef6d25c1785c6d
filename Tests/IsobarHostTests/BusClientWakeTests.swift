import Foundation
import IsobarBus
import IsobarHost
import Synchronization
import Testing

/// The bus client's receive thread waits in `zmq_poll` with no timeout but its own timers, and is
/// woken by its wake descriptor: a stop is seen at once, and a timer runs when it is due.
@Suite("BusClient's owner thread")
struct BusClientWakeTests {
    /// Events in the order they happened, from any thread.
    final class Events: Sendable {
        private let list = Mutex<[String]>([])
        /// Signalled on every event.
        let changed = WakePipe()!
        func add(_ event: String) {
            list.withLock { $0.append(event) }
            changed.signal()
        }
        var all: [String] { list.withLock { $0 } }
    }

    /// A client subscribed to `t` on a publisher of this test, its receive thread seen running
    /// (one message received, so it is back in its wait); `timers` are set before it starts.
    func runningClient(_ publisher: ZMQSocket, timers: (BusClient) -> Void) throws -> BusClient {
        try publisher.bind("tcp://127.0.0.1:*")
        let client = try BusClient(endpoints: BrokerEndpoints(frontend: "tcp://127.0.0.1:1", backend: try publisher.lastEndpoint()), topics: ["t"])
        timers(client)
        let received = WakePipe()!
        client.start { _, _ in received.signal() }
        // Slow joiner: probe until one arrives.
        for _ in 0..<500 {
            try publisher.send(topic: "t", line: "probe")
            if received.wait(timeout: .milliseconds(20)) { return client }
        }
        client.close()
        throw ZMQError(operation: "the client never received a probe", errno: ETIMEDOUT)
    }

    @Test("close() wakes the receive thread at once: it ends before its next timer is due")
    func closeWakesTheOwner() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        defer { publisher.close() }
        let events = Events()
        // The only other thing that could end the thread's wait: a timer 60 s away (set before the
        // start, so no wake is pending when the thread waits; the probing before the close can take
        // up to 10 s, so a nearer timer could fire first on a loaded machine).
        let client = try runningClient(publisher) { $0.every(.seconds(60)) { events.add("timer") } }
        client.close()
        events.add("closed")
        #expect(events.all == ["closed"])
    }

    @Test("a timer of the receive thread runs when due, while nothing arrives, and never after close()")
    func timersRunOnTheOwner() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        defer { publisher.close() }
        let events = Events()
        let client = try runningClient(publisher) { $0.every(.milliseconds(20)) { events.add("tick") } }
        for _ in 0..<20 where events.all.count < 3 {
            events.changed.drain()
            events.changed.wait(timeout: .seconds(2))
        }
        client.close()
        let atClose = events.all.count
        events.add("closed")
        #expect(Array(events.all.prefix(3)) == ["tick", "tick", "tick"])
        #expect(events.all.count == atClose + 1 && events.all.last == "closed")
    }
}
