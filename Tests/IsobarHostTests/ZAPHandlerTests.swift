import Foundation
import IsobarBus
import Logging
import Testing
@testable import IsobarHost

/// The broker's sockets with CURVE and the ZAP handler, in-process, with real libzmq over tcp loopback:
/// who receives, who is refused, what is logged. Each test keeps an allowed client receiving while it
/// asserts that the others get nothing, so a broken handler (admitting everyone, or no one) fails.
@Suite("CURVE broker and ZAP handler", .serialized)
struct ZAPHandlerTests {
    let server: ZMQCurveKeyPair
    let allowed: ZMQCurveKeyPair
    let stranger: ZMQCurveKeyPair
    let logs = CollectedLogs()

    init() throws {
        server = try ZMQCurve.generateKeyPair()
        allowed = try ZMQCurve.generateKeyPair()
        stranger = try ZMQCurve.generateKeyPair()
    }

    func startBroker(curve: Bool = true) throws -> InProcessBroker {
        let config = curve ? try BrokerCurve(secretKey: server.secretKey, allowlist: CurveAllowlist(keys: [allowed.publicKey])) : nil
        return try InProcessBroker(curve: config, logger: logs.logger)
    }

    /// Options of a CURVE client with `pair`, trusting this test's broker key.
    func clientOptions(_ pair: ZMQCurveKeyPair) -> [ZMQSocketOption] {
        ZMQSocketOption.defaults + BusSecurity(serverKey: server.publicKey, keyPair: pair).clientOptions
    }

    @Test("an allowed key receives; a valid keypair not in the allowlist and a plain client receive nothing; each refused key logged once")
    func onlyAllowedSubscribersReceive() throws {
        let broker = try startBroker()
        defer { broker.stop() }
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub, options: clientOptions(allowed))
        try publisher.connect(broker.frontend)
        let good = try ZMQSocket(context, .sub, options: clientOptions(allowed))
        let intruder = try ZMQSocket(context, .sub, options: clientOptions(stranger))
        let plain = try ZMQSocket(context, .sub)
        for socket in [good, intruder, plain] {
            try socket.subscribe("t")
            try socket.connect(broker.backend)
        }

        var counts = (good: 0, intruder: 0, plain: 0)
        let started = ContinuousClock.now
        var n = 0
        // At least 2 s, so the refused clients retry their handshakes several times meanwhile.
        while (counts.good < 50 || ContinuousClock.now - started < .seconds(2)) && ContinuousClock.now - started < .seconds(20) {
            try publisher.send(topic: "t", line: #"{"type":"t","n":\#(n)}"#)
            n += 1
            if try good.receiveMessage(timeout: .milliseconds(10)) != nil { counts.good += 1 }
            while try intruder.receiveMessageNonBlocking() != nil { counts.intruder += 1 }
            while try plain.receiveMessageNonBlocking() != nil { counts.plain += 1 }
        }
        let tail = ContinuousClock.now + .milliseconds(300)
        while ContinuousClock.now < tail {
            if try intruder.receiveMessage(timeout: .milliseconds(50)) != nil { counts.intruder += 1 }
            while try plain.receiveMessageNonBlocking() != nil { counts.plain += 1 }
        }
        #expect(counts.good >= 50, "the allowed client received \(counts.good) of \(n)")
        #expect(counts.intruder == 0)
        #expect(counts.plain == 0)
        #expect(logs.count(containing: "refused client \(stranger.publicKey)") == 1, "\(logs.text)")
        #expect(logs.count(containing: "admitted CURVE client \(allowed.publicKey)") == 1, "\(logs.text)")
        #expect(logs.count(containing: "refused client \(allowed.publicKey)") == 0)
        for socket in [publisher, good, intruder, plain] { socket.close() }
    }

    @Test("messages from a refused or plain publisher never reach an allowed subscriber")
    func onlyAllowedPublishersDeliver() throws {
        let broker = try startBroker()
        defer { broker.stop() }
        let context = try ZMQContext()
        let subscriber = try ZMQSocket(context, .sub, options: clientOptions(allowed))
        try subscriber.subscribe("t")
        try subscriber.connect(broker.backend)
        let good = try ZMQSocket(context, .pub, options: clientOptions(allowed))
        let intruder = try ZMQSocket(context, .pub, options: clientOptions(stranger))
        let plain = try ZMQSocket(context, .pub)
        for socket in [good, intruder, plain] { try socket.connect(broker.frontend) }

        var received: [String: Int] = [:]
        let started = ContinuousClock.now
        while ((received["good"] ?? 0) < 50 || ContinuousClock.now - started < .seconds(2)) && ContinuousClock.now - started < .seconds(20) {
            try good.send(topic: "t", line: "good")
            try intruder.send(topic: "t", line: "intruder")
            try plain.send(topic: "t", line: "plain")
            while let message = try subscriber.receiveMessage(timeout: .milliseconds(10)) {
                received[message.payloadString, default: 0] += 1
            }
        }
        #expect((received["good"] ?? 0) >= 50, "\(received)")
        #expect(received["intruder"] == nil && received["plain"] == nil, "\(received)")
        #expect(logs.count(containing: "refused client \(stranger.publicKey)") == 1, "\(logs.text)")
        for socket in [subscriber, good, intruder, plain] { socket.close() }
    }

    @Test("MAXMSGSIZE: the broker's XSUB drops an oversized message, later ones pass (CURVE on)")
    func brokerFrontendBoundsMessageSize() throws {
        let broker = try startBroker()
        defer { broker.stop() }
        let context = try ZMQContext()
        let subscriber = try ZMQSocket(context, .sub, options: clientOptions(allowed))
        try subscriber.subscribe("t")
        try subscriber.connect(broker.backend)
        let publisher = try ZMQSocket(context, .pub, options: clientOptions(allowed))
        try publisher.connect(broker.frontend)
        try #require(try probe(publisher, subscriber), "nothing came through the broker")

        try publisher.send(topic: "t", payload: [UInt8](repeating: 0x61, count: ZMQSocketOption.defaultMaxMessageSize + 1))
        // The publisher is disconnected and reconnects; probes come through again, the big one never.
        var sizes: [Int] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while sizes.filter({ $0 < 100 }).count < 5 && ContinuousClock.now < deadline {
            try publisher.send(topic: "t", line: "small")
            if let message = try subscriber.receiveMessage(timeout: .milliseconds(50)) { sizes.append(message.payload.count) }
        }
        while let message = try subscriber.receiveMessage(timeout: .milliseconds(300)) { sizes.append(message.payload.count) }
        #expect(sizes.filter { $0 < 100 }.count >= 5)
        #expect(sizes.allSatisfy { $0 < 100 }, "the oversized message was delivered")
        publisher.close()
        subscriber.close()
    }

    @Test("MAXMSGSIZE: BusClient's subscriber (as attach uses it) never delivers an oversized message")
    func busClientBoundsMessageSize() throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        try publisher.bind("tcp://127.0.0.1:*")
        let client = try BusClient(endpoints: BrokerEndpoints(frontend: "tcp://127.0.0.1:1", backend: try publisher.lastEndpoint()), topics: ["t"])
        let sizes = LockedSizes()
        client.start { _, payload in sizes.append(payload.count) }
        defer { client.close() }

        let deadline = ContinuousClock.now + .seconds(10)
        while sizes.count == 0 && ContinuousClock.now < deadline {
            try publisher.send(topic: "t", line: "probe")
            Thread.sleep(forTimeInterval: 0.02)
        }
        try #require(sizes.count > 0, "the BusClient received nothing")
        try publisher.send(topic: "t", payload: [UInt8](repeating: 0x61, count: ZMQSocketOption.defaultMaxMessageSize + 1))
        Thread.sleep(forTimeInterval: 1)
        #expect(sizes.all.allSatisfy { $0 < 100 }, "the oversized message was delivered")
        publisher.close()
    }

    /// Publishes probes until `subscriber` receives one (slow joiner), then drains.
    func probe(_ publisher: ZMQSocket, _ subscriber: ZMQSocket) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        var seen = false
        while !seen && ContinuousClock.now < deadline {
            try publisher.send(topic: "t", line: "probe")
            seen = try subscriber.receiveMessage(timeout: .milliseconds(50)) != nil
        }
        while try subscriber.receiveMessage(timeout: .milliseconds(200)) != nil {}
        return seen
    }
}

/// `BrokerSockets` on ephemeral loopback ports, proxying on its own thread until `stop()`.
final class InProcessBroker: @unchecked Sendable {
    // @unchecked: the sockets are used by the proxy thread until it is joined in stop(), then by close().
    let sockets: BrokerSockets
    let frontend: String
    let backend: String
    private let done = DispatchSemaphore(value: 0)

    init(curve: BrokerCurve?, logger: Logger) throws {
        let endpoints = BrokerEndpoints(frontend: "tcp://127.0.0.1:*", backend: "tcp://127.0.0.1:*")
        sockets = try BrokerSockets.open(BrokerOptions(endpoints: endpoints, curve: curve), logger: logger)
        frontend = sockets.boundFrontend
        backend = sockets.boundBackend
        let sockets = self.sockets
        let done = self.done
        let thread = Thread {
            try? sockets.run()
            done.signal()
        }
        thread.start()
    }

    func stop() {
        sockets.context.shutdown()
        _ = done.wait(timeout: .now() + 5)
        sockets.close()
    }
}

/// Payload sizes received on another thread.
final class LockedSizes: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [Int] = []
    func append(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
    var count: Int { all.count }
}

/// A logger whose lines are kept for assertions (the ZAP handler logs from its own thread).
final class CollectedLogs: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    var logger: Logger {
        Logger(label: "test") { _ in Handler(sink: self) }
    }

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    func count(containing text: String) -> Int { lock.withLock { lines.filter { $0.contains(text) }.count } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    struct Handler: LogHandler {
        let sink: CollectedLogs
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            sink.append("\(event.level): \(event.message)")
        }
    }
}
