import Foundation
import IsobarBus
import Testing

/// The three transports the bus tests run over, each yielding a bind endpoint unique to one test.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inproc, ipc, tcp

    var testDescription: String { rawValue }

    /// A fresh endpoint to bind. tcp uses an ephemeral port; read the real one with `lastEndpoint()`.
    func bindEndpoint() throws -> String {
        switch self {
        case .inproc:
            return "inproc://test-\(UUID().uuidString)"
        case .ipc:
            // A socket file directly in /tmp (ipc paths are limited to ~107 bytes); see `PubSubPair.close()`.
            return "ipc:///tmp/isobar-bus-\(UUID().uuidString.prefix(13)).sock"
        case .tcp:
            return "tcp://127.0.0.1:*"
        }
    }
}

/// A bound PUB and a connected SUB on one transport, used from the test's own thread only.
struct PubSubPair {
    let context: ZMQContext
    let pub: ZMQSocket
    let sub: ZMQSocket
    let endpoint: String

    init(_ transport: Transport, subscriptions: [String], subOptions: [ZMQSocketOption] = ZMQSocketOption.defaults) throws {
        context = try ZMQContext()
        pub = try ZMQSocket(context, .pub)
        try pub.bind(try transport.bindEndpoint())
        endpoint = try pub.lastEndpoint()
        sub = try ZMQSocket(context, .sub, options: subOptions)
        for topic in subscriptions { try sub.subscribe(topic) }
        try sub.connect(endpoint)
    }

    /// Closes both sockets and removes an ipc socket file.
    func close() {
        sub.close()
        pub.close()
        if endpoint.hasPrefix("ipc://") {
            try? FileManager.default.removeItem(atPath: String(endpoint.dropFirst("ipc://".count)))
        }
    }
}

/// Waits out ZeroMQ's slow joiner: publishes probe messages on `topic` until `sub` receives one, then
/// drains the probes still in flight. After this, the subscription is known to have reached the publisher.
/// Returns every message received meanwhile (empty, and the test fails, if nothing came within `timeout`).
@discardableResult
func handshake(
    pub: ZMQSocket, sub: ZMQSocket, topic: String, timeout: Duration = .seconds(10)
) throws -> [ZMQMessage] {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    var received: [ZMQMessage] = []
    var n = 0
    while received.isEmpty && ContinuousClock.now < deadline {
        try pub.send(topic: topic, line: #"{"type":"probe","n":\#(n)}"#)
        n += 1
        if let message = try sub.receiveMessage(timeout: .milliseconds(20)) { received.append(message) }
    }
    #expect(!received.isEmpty, "no probe arrived within \(timeout): subscription never reached the publisher")
    // Drain the remaining probes so the caller's stream starts clean.
    while let message = try sub.receiveMessage(timeout: .milliseconds(50)) { received.append(message) }
    return received
}

/// Runs `body` on a dedicated thread (as production receive loops do) and returns a way to wait for it.
final class TestThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let done = self.done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
    }

    /// Whether the thread finished within `timeout`.
    func join(seconds: Double) -> Bool {
        done.wait(timeout: .now() + seconds) == .success
    }
}
