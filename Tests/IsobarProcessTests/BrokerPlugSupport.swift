#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarBus
import IsobarCore
import Testing
@testable import IsobarTestSupport

/// A real `isobar broker` on two free loopback ports, plus the environment that points other
/// `isobar` processes at it (`ISOBAR_PUB` / `ISOBAR_SUB`).
struct RunningBroker {
    let process: ProcessHarness
    let frontend: String
    let backend: String

    var environment: [String: String] { ["ISOBAR_PUB": frontend, "ISOBAR_SUB": backend] }

    /// Starts the broker and waits for its readiness line.
    static func start() async throws -> RunningBroker {
        let frontend = ProcessHarness.freeTCPEndpoint()
        let backend = ProcessHarness.freeTCPEndpoint()
        let process = try await ProcessHarness.isobar(["broker"], environment: ["ISOBAR_PUB": frontend, "ISOBAR_SUB": backend])
        let ready = await process.waitForReady(timeout: .seconds(30))
        try #require(ready != nil, "broker did not start:\n\(process.stderrText)")
        return RunningBroker(process: process, frontend: frontend, backend: backend)
    }

    /// Starts `isobar plug ARGUMENTS...` against this broker and waits until its command runs.
    func startPlug(_ arguments: [String]) async throws -> ProcessHarness {
        let plug = try await ProcessHarness.isobar(["plug"] + arguments, environment: environment)
        let started = await plug.waitForReady(timeout: .seconds(30))
        try #require(started != nil, "plug did not start its command:\n\(plug.stderrText)")
        return plug
    }

    /// SIGTERMs the broker and expects a clean exit.
    func stop() async {
        process.signal(SIGTERM)
        let ended = await process.waitForExit(timeout: .seconds(30))
        #expect(ended == .exited(0), "broker: \(ended.map(String.init(describing:)) ?? "still running")\n\(process.stderrText)")
    }
}

/// The test's own bus client: a PUB connected to the broker's frontend and a SUB connected to its
/// backend, used from the test's thread only.
final class BusClient {
    let context: ZMQContext
    let pub: ZMQSocket
    let sub: ZMQSocket
    /// Lines of a batched message (see `TopicBatch`) not yet handed out by `receiveObject`.
    private var pending: [(topic: String, line: [UInt8])] = []

    init(_ broker: RunningBroker, subscriptions: [String]) throws {
        context = try ZMQContext()
        pub = try ZMQSocket(context, .pub)
        try pub.connect(broker.frontend)
        sub = try ZMQSocket(context, .sub)
        for topic in subscriptions { try sub.subscribe(topic) }
        try sub.connect(broker.backend)
    }

    /// Waits out the slow joiner along the whole path (test PUB -> broker -> plug -> command -> plug
    /// -> broker -> test SUB): publishes `probe(n)` on `topic` until something comes back, then drains
    /// what is still in flight. Returns whether anything came back within `timeout`.
    func handshake(topic: String, timeout: Duration = .seconds(20), probe: (Int) -> String) throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        var n = 0
        var seen = false
        while !seen && ContinuousClock.now < deadline {
            try pub.send(topic: topic, line: probe(n))
            n += 1
            seen = try sub.receiveMessage(timeout: .milliseconds(50)) != nil
        }
        while try sub.receiveMessage(timeout: .milliseconds(200)) != nil {}
        return seen
    }

    /// The next line received (a batched message gives its lines one by one), decoded as a JSON
    /// object, or nil after `timeout`.
    func receiveObject(timeout: Duration = .seconds(10)) throws -> (topic: String, object: [String: Any])? {
        if pending.isEmpty {
            guard let message = try sub.receiveMessage(timeout: timeout) else { return nil }
            pending = message.lines.map { (message.topic, $0) }
            if pending.isEmpty { pending = [(message.topic, [])] }
        }
        let (topic, line) = pending.removeFirst()
        let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:]
        return (topic, object)
    }
}

/// The `jq` program the plug tests run as their command: rewrites `"type":"in"` to `"type":"out"`,
/// so what the plug publishes is not what it subscribes to (no loop). `--unbuffered` flushes each line.
let jqRewrite = ["jq", "-c", "--unbuffered", #".type = "out""#]

extension ZMQMessage {
    /// The payload's JSON lines (one, or a batch; see `TopicBatch`).
    var lines: [[UInt8]] { TopicBatch.lines(of: payload) }
}
