import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// `isobar broker` plus `isobar gateway` (no stages) on free ports, and a bus client that plays the
/// filter and formatter: it sees what the gateway publishes and publishes what the gateway relays.
final class GatewayAlone: @unchecked Sendable {
    // @unchecked: `seen` is guarded by `condition`.
    let broker: ProcessHarness
    let gateway: ProcessHarness
    let port: Int
    let name: String
    let bus: BusClient
    private let condition = NSCondition()
    private var seen: [(topic: String, line: String)] = []

    /// `arguments` are added to the gateway's command line.
    init(_ arguments: [String] = [], name: String = "gw-test", webRoot: String? = nil) async throws {
        let pub = ProcessHarness.freeTCPPort(), sub = ProcessHarness.freeTCPPort()
        let environment = ["ISOBAR_PUB": "tcp://127.0.0.1:\(pub)", "ISOBAR_SUB": "tcp://127.0.0.1:\(sub)"]
        broker = try await ProcessHarness.isobar(["broker"], environment: environment)
        let root = webRoot ?? ProcessHarness.packageRoot.appendingPathComponent("Web").path
        gateway = try await ProcessHarness.isobar(["gateway", "--listen", "127.0.0.1:0", "--name", name, "--lease-interval", "0.2",
                                             "--web-root", root] + arguments, environment: environment)
        self.name = name
        // http:// or, with --tls-cert, https://
        let ready = await gateway.waitForStderr(timeout: .seconds(60)) { $0.contains("gateway: listening on http") && $0.contains("://127.0.0.1:") }
        guard let ready, let port = Int(ready.split(separator: ":").last?.filter(\.isNumber) ?? "") else {
            throw HTTPProbe.Failure(description: "gateway did not start: \(gateway.stderrText)")
        }
        self.port = port
        bus = try BusClient(endpoints: BrokerEndpoints(frontend: environment["ISOBAR_PUB"] ?? "", backend: environment["ISOBAR_SUB"] ?? ""),
                            topics: ["viewport/", "select/", "resync", "leave/", "lease"])
        bus.start { [condition] topic, payload in
            condition.lock()
            self.seen.append((topic, String(decoding: payload, as: UTF8.self)))
            condition.broadcast()
            condition.unlock()
        }
    }

    deinit { bus.close() }

    /// Waits until the bus works both ways: a lease from the gateway arrived here, and a tally
    /// published here reached the gateway (its /healthz turns 200).
    func waitForBus() throws {
        try #require(waitFor(topic: "lease", timeout: 60) != nil, "no lease: \(gateway.stderrText)")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            publishTally(today: "today-x")
            if (try? HTTPProbe.get(port: port, path: "/healthz"))?.status == 200 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HTTPProbe.Failure(description: "the gateway never took a tally: \(gateway.stderrText)")
    }

    /// What `pollHealthz` publishes before each probe.
    enum Publishing { case nothing, tally(today: String?) }

    /// Asks /healthz every 0.1 s (publishing a tally first, when told to) until a reply matches;
    /// returns it, or nil after `timeout` seconds. `lastTallyAt` is when the last tally was published.
    func pollHealthz(timeout: Double, publishing: Publishing, until match: (HTTPProbe.Reply) -> Bool) -> HTTPProbe.Reply? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if case .tally(let today) = publishing {
                lastTallyAt = Date()
                publishTally(today: today)
            }
            if let reply = try? HTTPProbe.get(port: port, path: "/healthz"), match(reply) { return reply }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    private(set) var lastTallyAt = Date.distantPast

    func publishTally(today: String?, resend: Bool = false, shard: Shard = .whole) {
        var writer = JSONWriter()
        Tally(gateway: name, clients: 0, digest: "0000000000000000", resend: resend, today: today, tomorrow: nil, shard: shard).write(to: &writer)
        bus.publish(Array(writer.bytes.dropLast()))
    }

    /// Lines seen on topics matching `topic` (exactly) since `from`.
    func lines(topic: String, from: Int = 0) -> [String] {
        condition.withLock { seen[min(from, seen.count)...].filter { $0.topic == topic }.map(\.line) }
    }

    var seenCount: Int { condition.withLock { seen.count } }

    /// The first line on `topic` at or after index `from` that matches, waiting up to `timeout` seconds.
    func waitFor(topic: String, from: Int = 0, timeout: Double, where match: (String) -> Bool = { _ in true }) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        var index = from
        while true {
            while index < seen.count {
                if seen[index].topic == topic && match(seen[index].line) { return seen[index].line }
                index += 1
            }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    func object(_ line: String?) -> [String: Any]? {
        line.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    func stop() async {
        gateway.signal(SIGTERM)
        _ = await gateway.waitForExit(timeout: .seconds(10))
        broker.signal(SIGTERM)
        _ = await broker.waitForExit(timeout: .seconds(10))
    }
}
