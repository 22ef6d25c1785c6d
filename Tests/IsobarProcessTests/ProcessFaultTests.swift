#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// `isobar up --sample` on free ports, for the fault suites: the processes it supervises found
/// through /proc, and the data directory removed on `await stop()`.
struct UpPipeline {
    let process: ProcessHarness
    let endpoints: BrokerEndpoints
    let dataDirectory: String
    let samplePort: UInt16

    /// Starts `up`. With `--sample` the feed's drift epoch is an hour long, so the values are the
    /// fixture's for the whole test and the brute-force reference (`Reference`) is exact.
    /// The sample feed with an hour-long drift epoch.
    static let sampleArguments = ["--sample", "--sample-period", "3600"]

    static func start(_ arguments: [String] = sampleArguments) async throws -> UpPipeline {
        let http = ProcessHarness.freeTCPPort()
        let endpoints = BrokerEndpoints(frontend: ProcessHarness.freeTCPEndpoint(), backend: ProcessHarness.freeTCPEndpoint())
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-faults-\(UUID().uuidString)").path
        let process = try await ProcessHarness.isobar(
            ["up", "--sample-port", String(http), "--data-dir", data, "--no-gateway",
             "--fixtures", ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path] + arguments,
            environment: ["ISOBAR_PUB": endpoints.frontend, "ISOBAR_SUB": endpoints.backend])
        return UpPipeline(process: process, endpoints: endpoints, dataDirectory: data, samplePort: http)
    }

    /// SIGINT, then wait for the ordered shutdown; removes the data directory.
    func stop() async {
        process.signal(SIGINT)
        if await process.waitForExit(timeout: .seconds(30)) == nil {
            for pid in Self.descendants(of: process.pid) { kill(pid, SIGKILL) }
            process.signal(SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// The supervised services by name (`broker`, `sample-feed`, the plugs by `--name`, the
    /// built-in stages on the bus as `filter`, `format`).
    func services() -> [String: pid_t] {
        ProcessHarness.services(under: process.pid)
    }

    /// Waits until service `name` runs with a pid other than `old` (and, for a plug, until its
    /// command runs); returns the pid.
    func waitForService(_ name: String, other old: pid_t? = nil, timeout: Duration = .seconds(30)) -> pid_t? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let pid = services()[name], pid != old, stagePID(of: pid) != nil {
                return pid
            }
            usleep(10_000)
        }
        return nil
    }

    /// The process running a service's stage: a plug's command, or the service itself.
    func stagePID(of service: pid_t) -> pid_t? {
        ProcessHarness.stagePID(ofService: service)
    }

    static func descendants(of pid: pid_t) -> [pid_t] {
        ProcessHarness.children(of: pid).flatMap { [$0] + descendants(of: $0) }
    }
}

/// A map client as `isobar attach` runs it: the product's `AttachSession` (probes until the filter
/// answers, resyncs on a version gap, re-announces when the filter restarts), plus a way to wait for
/// its annotation set.
final class Viewer: @unchecked Sendable {
    // @unchecked: `condition` guards nothing but wake-ups; the session is thread-safe.
    let name: String
    let session: AttachSession
    private let condition = NSCondition()
    private(set) var viewport: (lat: Double, lon: Double, dlat: Double, dlon: Double)

    init(_ name: String, endpoints: BrokerEndpoints, lat: Double, lon: Double, dlat: Double, dlon: Double, heartbeat: Double = AttachSession.defaultHeartbeat) throws {
        self.name = name
        viewport = (lat, lon, dlat, dlon)
        let region = try Region(center: Coordinate(latitude: lat, longitude: lon), latitudeDelta: dlat, longitudeDelta: dlon)
        session = try AttachSession(client: name, initial: Viewport(client: name, region: region), heartbeat: heartbeat, endpoints: endpoints)
        let condition = self.condition
        session.onChange = {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
        session.start()
    }

    deinit { session.close() }

    func pan(_ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double) throws {
        viewport = (lat, lon, dlat, dlon)
        let region = try Region(center: Coordinate(latitude: lat, longitude: lon), latitudeDelta: dlat, longitudeDelta: dlon)
        session.update(Viewport(client: name, region: region))
    }

    var items: [String: AnnotationSet.Item] { session.snapshot().annotations.items }

    /// The brute-force set for the current viewport on today's fixture.
    func expected(_ records: [Reference.Record]) -> Set<String> {
        Reference.visible(records, lat: viewport.lat, lon: viewport.lon, dlat: viewport.dlat, dlon: viewport.dlon)
    }

    /// Waits until the set is exactly `ids` with the fixture's titles; returns the time it took, or nil.
    func waitFor(_ ids: Set<String>, titles: [String: String], timeout: Duration) -> Duration? {
        let start = ContinuousClock.now
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let items = self.items
            if Set(items.keys) == ids && ids.allSatisfy({ items[$0]?.title == titles[$0] }) { return ContinuousClock.now - start }
            if Date() >= deadline { return nil }
            _ = condition.wait(until: min(deadline, Date().addingTimeInterval(0.05)))
        }
    }
}

/// kill -9, one process at a time at a random moment, while a client pans: the filter stage, the
/// formatter, the persister, a plug host (rotating over the four) and the broker. After the
/// supervisor has restarted the killed process the client (never restarted) must hold exactly the
/// brute-force set for its latest viewport, with the fixture's titles, within 2 s.
///
/// Rounds: `ISOBAR_FAULT_ROUNDS` (default 20).
@Suite("process faults: kill -9 under isobar up while a client pans", .serialized, .processSlot)
struct ProcessFaultTests {
    static var rounds: Int {
        Int(ProcessInfo.processInfo.environment["ISOBAR_FAULT_ROUNDS"] ?? "").map { max(1, $0) } ?? 20
    }

    enum Target: CaseIterable, CustomStringConvertible {
        case filterStage, formatStage, persistStage, plugHost, broker
        var description: String {
            switch self {
            case .filterStage: "filter stage"
            case .formatStage: "format stage"
            case .persistStage: "persist stage"
            case .plugHost: "plug host"
            case .broker: "broker"
            }
        }
    }

    static let initial = (lat: 40.924, lon: -108.0955, dlat: 25.0, dlon: 20.0)

    @Test("kill -9 of the filter, format or persist stage or a plug host: the client converges within 2 s of the restart",
          .timeLimit(.minutes(10)))
    func killNineWhilePanning() async throws {
        // Every stage under a plug (`up --plugs`): a stage killed while its plug holds what arrives.
        try await run(targets: [.filterStage, .formatStage, .persistStage, .plugHost], rounds: Self.rounds, pansAfterRestart: 3,
                up: UpPipeline.sampleArguments + ["--plugs"])
    }

    /// The default layout: the filter and the formatter are on the bus in process (`--bus`), so a
    /// kill takes the stage and its bus sockets together and `up` restarts it; what was in flight is
    /// repaired by the protocol (the new filter's resync, the client's heartbeat).
    @Test("kill -9 of the filter or format process on the bus (no plug): the client converges within 2 s of the restart",
          .timeLimit(.minutes(10)))
    func killNineInProcessStagesWhilePanning() async throws {
        try await run(targets: [.filterStage, .formatStage], rounds: max(2, Self.rounds / 2), pansAfterRestart: 3)
    }

    /// `up --chain-format`: the formatter runs inside the filter, so a kill of the filter takes both;
    /// the restarted filter's resync and the client's heartbeat repair it the same way.
    @Test("kill -9 of the filter with the formatter chained in it: the client converges within 2 s of the restart",
          .timeLimit(.minutes(10)))
    func killNineChainedFilterWhilePanning() async throws {
        try await run(targets: [.filterStage], rounds: max(2, Self.rounds / 4), pansAfterRestart: 3,
                up: UpPipeline.sampleArguments + ["--chain-format"])
    }

    /// The broker's turn, with the same three pans after it is back. Before the client's heartbeat
    /// carried its version, 3 of 20 broker kills left the client wrong for good: an answer lost
    /// while the peers reconnected went unnoticed by an idle client. See RELIABILITY.md.
    @Test("kill -9 of the broker: the client converges within 2 s of the restart",
          .timeLimit(.minutes(10)))
    func killNineBrokerWhilePanning() async throws {
        try await run(targets: [.broker], rounds: Self.rounds, pansAfterRestart: 3)
    }

    /// The client's last pan comes right after the restarted process is up (its "started" log line),
    /// and then it stops: only the heartbeat (the viewport with the version applied) can reveal an
    /// answer lost in the restart. See RELIABILITY.md.
    @Test("a client that stops panning right after a format or broker restart still converges",
          .timeLimit(.minutes(10)))
    func lastPanRightAfterTheRestart() async throws {
        try await run(targets: [.formatStage, .broker], rounds: 10, pansAfterRestart: 0)
    }

    /// Each round: pan every 100 ms, kill the round's target with SIGKILL at a random moment 0.1-1 s
    /// in, wait until it is back (its "started" / "subscribers to" log line), pan `pansAfterRestart`
    /// more times 100 ms apart, then once more (the latest viewport) and require the brute-force set
    /// for it within 2 s.
    func run(targets: [Target], rounds: Int, pansAfterRestart: Int, up: [String] = UpPipeline.sampleArguments) async throws {
        let pipeline = try await UpPipeline.start(up)
        let today = try Reference.records("today")
        let titles = Dictionary(uniqueKeysWithValues: today.map { ($0.id, Reference.temperatureTitle($0)) })
        let i = Self.initial
        let viewer = try Viewer("chaos", endpoints: pipeline.endpoints, lat: i.lat, lon: i.lon, dlat: i.dlat, dlon: i.dlon)
        let first = viewer.waitFor(viewer.expected(today), titles: titles, timeout: .seconds(60))
        try #require(first != nil, "the client never converged at start\n\(pipeline.process.stderrText.suffix(4000))")

        var random = SystemRandomNumberGenerator()
        var lat = i.lat, lon = i.lon
        func pan() throws {
            lat = min(50, max(30, lat + Double.random(in: -2...2, using: &random)))
            lon = min(-75, max(-125, lon + Double.random(in: -3...3, using: &random)))
            try viewer.pan(lat, lon, Double.random(in: 8...30, using: &random), Double.random(in: 10...40, using: &random))
        }
        var times: [Double] = []
        var failures: [String] = []
        var late: [String] = []
        var counts: [String: Int] = [:]
        let plugs = ["filter", "format", "persist", "fetch"]
        for round in 0..<rounds {
            let target = targets[round % targets.count]
            let services = pipeline.services()
            // Who dies: a stage is the child of its plug (or, on the bus in process, the service
            // itself); the plug host rotates over the four services.
            let service: String
            let victim: pid_t?
            switch target {
            case .filterStage: service = "filter"; victim = services["filter"].flatMap(pipeline.stagePID)
            case .formatStage: service = "format"; victim = services["format"].flatMap(pipeline.stagePID)
            case .persistStage: service = "persist"; victim = services["persist"].flatMap(pipeline.stagePID)
            case .plugHost: service = plugs[(round / targets.count) % plugs.count]; victim = services[service]
            case .broker: service = "broker"; victim = services["broker"]
            }
            guard let victim else {
                failures.append("round \(round): no \(target) to kill (services: \(services))")
                continue
            }
            let label = target == .plugHost ? "plug host (\(service))" : target.description
            counts[label, default: 0] += 1
            // The readiness line a restarted process logs once it is up (`Readiness`): the plug's
            // "NAME: ready: started COMMAND (pid N)" (for a stage and for a new plug alike), the broker's
            // "broker: ready: publishers connect to …".
            let readyLine = target == .broker ? "broker: " + Readiness.prefix : "\(service): " + Readiness.prefix
            let readyBefore = pipeline.process.stderrCount(containing: readyLine)

            let killAt = ContinuousClock.now + .milliseconds(Int.random(in: 100...1000, using: &random))
            while ContinuousClock.now < killAt {
                try pan()
                usleep(100_000)
            }
            kill(victim, SIGKILL)
            let restartDeadline = ContinuousClock.now + .seconds(30)
            while pipeline.process.stderrCount(containing: readyLine) <= readyBefore && ContinuousClock.now < restartDeadline {
                usleep(10_000)
            }
            guard pipeline.process.stderrCount(containing: readyLine) > readyBefore else {
                failures.append("round \(round): \(label) was not restarted within 30 s")
                continue
            }
            for _ in 0..<pansAfterRestart {
                try pan()
                usleep(100_000)
            }
            try pan()  // the latest viewport
            if let took = viewer.waitFor(viewer.expected(today), titles: titles, timeout: .seconds(2)) {
                times.append(Double(took.components.attoseconds) / 1e18 + Double(took.components.seconds))
            } else {
                let have = Set(viewer.items.keys), want = viewer.expected(today)
                let version = viewer.session.snapshot().annotations.version
                // Did it converge later, by itself (no more pans)? Only the heartbeat can help.
                let later = viewer.waitFor(want, titles: titles, timeout: .seconds(5))
                failures.append("round \(round) (\(label)): not converged 2 s after the restart: \(have.subtracting(want).count) extra, \(want.subtracting(have).count) missing at version \(version); \(later.map { "converged \($0) later" } ?? "still wrong 5 s later")")
                if later == nil {
                    late.append(label)
                    try pan()  // start the next round from a converged client
                    _ = viewer.waitFor(viewer.expected(today), titles: titles, timeout: .seconds(10))
                }
            }
        }
        times.sort()
        let median = times.isEmpty ? 0 : times[times.count / 2]
        print("reliability: process faults: \(rounds) rounds \(counts.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")); converged within 2 s: \(times.count); median \(String(format: "%.3f", median)) s, max \(String(format: "%.3f", times.last ?? 0)) s")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))\n\(pipeline.process.stderrText.suffix(6000))")
        await pipeline.stop()
    }
}
