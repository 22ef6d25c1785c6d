import ArgumentParser
import Foundation
import IsobarCore

/// `gateway`: N WebSocket clients through the whole pipeline (broker, filter, formatter, gateway).
/// Measures what idle connected clients cost every process, the gateway's memory per connection,
/// updates/s of clients panning in small steps through the gateway while the rest sit idle, and
/// the pan -> applied latency of one client.
struct GatewayBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "WebSocket clients through the gateway: idle CPU of the whole pipeline, memory per connection, panning updates/s, pan latency.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Clients that connect, look at a small region and then sit idle.")
    var idle = 9_000
    @Option(help: "Clients that pan in small steps (closed loop), besides the idle ones.")
    var panning = 1_000
    @Option(help: "Pans per panning client per run.")
    var steps = 20
    @Option(help: "Stations loaded.")
    var stations = 100_000
    @Option(help: "Seconds of idle CPU measured (every process, gateway included): at least 3 x --ping, so every timer is in it.")
    var idleSeconds = 160.0
    @Option(help: "Pans of the single-client latency run.")
    var latencySteps = 300
    @Option(help: "Event-loop threads of the WebSocket clients in this process.")
    var threads = 1
    @Option(help: "The gateway's --ping (seconds; its default is 50): an idle window of 3+ intervals sees the pings.")
    var ping = 50.0
    @Option(help: "The gateway's --ping-every (a ping every Nth keepalive; its default is 3); not passed when absent (older gateways have no such flag).")
    var pingEvery: Int?
    @Flag(help: "Measure only the connections and the idle window (no panning, no latency run).")
    var idleOnly = false

    func run() async throws {
        let world = try WorldStations.load(path: common.world)
        let generated = StationGenerator(world: world, seed: common.seed).stations(count: stations)
        let (id, lines) = StationGenerator.snapshotLines(generated)
        let shadow = Shadow(lines: lines)
        guard let snapshot = shadow.snapshot else { throw ValidationError("the shadow filter holds no snapshot") }
        let isobar = Paths.isobar(common.isobar)
        try await Pipeline.run(isobar: isobar, name: "gateway", onlyProbes: true, plugs: common.plugs) { pipeline in
            let port = FreePort.next()
            let gateway = try await Children.start(isobar, ["gateway", "--listen", "127.0.0.1:\(port)", "--name", "gw-bench",
                                                            "--max-connections", "\(idle + panning + 100)", "--rate", "200", "--burst", "200", "--ping", "\(ping)"]
                                                            + (pingEvery.map { ["--ping-every", "\($0)"] } ?? []),
                                                   environment: pipeline.environment, log: pipeline.scratch + "/gateway.log")
            try await ensuring({ try await measure(pipeline: pipeline, gateway: gateway, port: port, lines: lines, id: id, shadow: shadow, snapshot: snapshot) },
                               finally: { await Children.stop(gateway) })
        }
    }

    /// Everything measured, on a running pipeline and gateway.
    private func measure(pipeline: Pipeline, gateway: Child, port: Int, lines: [[UInt8]], id: String, shadow: Shadow,
                         snapshot: StationSnapshot) async throws {
        let gatewayLog = pipeline.scratch + "/gateway.log"
        guard await pipeline.waitFor(seconds: 30, { (try? String(contentsOfFile: gatewayLog, encoding: .utf8))?.contains("listening on") == true }) else {
            throw pipeline.failure("the gateway did not start listening")
        }
        try await pipeline.load(lines, id: id)
        let roles = pipeline.roles.filter { $0.pid != getpid() } + [("gateway", gateway.processIdentifier)]
        let gatewayPID = gateway.processIdentifier

        // Plans: each panning client's first viewport, then `steps * (runs + 1)` changing small pans.
        var random = SplitMix64(seed: common.seed &+ 77)
        func name(_ k: Int) -> String { String(format: "g%05d", k) }
        func viewportText(_ client: String, _ region: Region) -> (text: String, line: Viewport) {
            let viewport = Viewport(client: client, region: region)
            var writer = JSONWriter()
            viewport.write(to: &writer)
            return (String(decoding: writer.bytes.dropLast(), as: UTF8.self), viewport)
        }
        func smallRegion() -> Region {
            let station = snapshot.stations[Int(random.next() % UInt64(snapshot.stations.count))]
            return Region(clampingCenter: station.coordinate, latitudeDelta: 0.5, longitudeDelta: 0.625)
        }
        let rounds = common.runs + 1
        var plans: [(first: String, steps: [WSFleet.Step])] = []
        for k in 0..<panning {
            var planner = PanPlanner(seed: common.seed &+ 20_000 &+ UInt64(k), spans: 0.5...2.0, step: 0.1, zoom: 1.1)
            let first = viewportText(name(k), planner.next(in: snapshot))
            _ = shadow.answer(first.line)
            var steps: [WSFleet.Step] = []
            var attempts = 0
            while steps.count < self.steps * rounds && attempts < self.steps * rounds * 50 {
                attempts += 1
                let pan = viewportText(name(k), planner.next(in: snapshot))
                if let version = shadow.answer(pan.line).answer.version { steps.append(.init(text: pan.text, version: version)) }
            }
            guard steps.count == self.steps * rounds else { throw ValidationError("could not plan \(self.steps * rounds) changing pans for \(name(k))") }
            plans.append((first.text, steps))
        }

        var table = Table("gateway: \(Format.int(idle)) idle + \(Format.int(panning)) panning WebSocket clients, \(Format.int(stations)) stations (pans of 0.1 x span, zooms of 1.1x)",
                          header: ["measure", "value", "notes"])
        let fleet = WSFleet(port: port, threads: threads)
        let rssBefore = ProcStatus.bytes("VmRSS", pid: gatewayPID) ?? 0
        let connectStart = Clock.now()
        for k in 0..<idle {
            fleet.connectIdle(name: name(panning + k), first: viewportText(name(panning + k), smallRegion()).text)
            if k % 500 == 499 { await fleet.wait(seconds: 60) { fleet.connectedCount >= k - 1_000 } }  // no connect storm
        }
        for (k, plan) in plans.enumerated() { fleet.connectPanning(name: name(k), first: plan.first, plan: plan.steps) }
        guard await fleet.wait(seconds: 180, until: { fleet.connectedCount + fleet.failures.count >= idle + panning }), fleet.failures.isEmpty else {
            throw pipeline.failure("connected \(fleet.connectedCount) of \(idle + panning); failures: \(fleet.failures.prefix(3))")
        }
        // Every client holds its first answer: nothing is in flight (the tallies agree with the
        // leases from here on), so the idle window starts now.
        let connectSeconds = Clock.now() - connectStart
        let rssAfter = ProcStatus.bytes("VmRSS", pid: gatewayPID) ?? 0
        let perConnection = Double(rssAfter - rssBefore) / Double(idle + panning)
        table.add(["connected", "\(Format.int(idle + panning)) in \(Format.number(connectSeconds, 1)) s", "each answered (first annotations received)"])
        table.add(["gateway RSS per connection", "\(Format.number(perConnection / 1024, 1)) KB",
                   "\(ProcStatus.megabytes(rssBefore)) MB before, \(ProcStatus.megabytes(rssAfter)) MB after; target <= 8 KB (issue 32): \(perConnection <= 8 * 1024 ? "MET" : "NOT MET")"])

        // Idle: every process of the pipeline, gateway included, over idleSeconds (3+ ping
        // intervals, so the pings and every other periodic timer are inside the window).
        let cpuStart = roles.map { ProcStatus.cpuSeconds(pid: $0.pid) ?? 0 }
        let pingsBefore = fleet.pingsAnswered, pongsBefore = fleet.keepalivesReceived, closedBefore = fleet.closedCount
        let loadBefore = Self.loadAverage()
        let idleStart = Clock.now()
        try await Task.sleep(for: .milliseconds(Int64(idleSeconds * 1000)))  // the idle window being measured
        let window = Clock.now() - idleStart
        let idleCPU = zip(roles, cpuStart).map { ((ProcStatus.cpuSeconds(pid: $0.0.pid) ?? 0) - $0.1) / window }
        let idleTotal = idleCPU.reduce(0, +)
        let perClient = idleTotal * 1e6 / Double(idle + panning)
        table.add(["idle CPU, whole pipeline", "\(Format.number(idleTotal * 100, 2)) % of one core",
                   zip(roles, idleCPU).map { "\($0.0.name) \(Format.number($0.1 * 100, 2))" }.joined(separator: ", ") +
                   " over \(Format.number(window, 1)) s (\(Format.number(window / ping, 1)) ping intervals); target <= 5 %: \(idleTotal <= 0.05 ? "MET" : "NOT MET")"])
        table.add(["idle: µs per client per second", Format.number(perClient, 3),
                   "whole pipeline / \(Format.int(idle + panning)) clients; target <= 1 µs (issue 32): \(perClient <= 1 ? "MET" : "NOT MET")"])
        table.add(["idle: pings answered in the window", Format.int(fleet.pingsAnswered - pingsBefore),
                   "\(Format.int(fleet.keepalivesReceived - pongsBefore)) keepalive pongs received (unanswered); \(Format.int(fleet.closedCount - closedBefore)) connections closed in the window; load average \(loadBefore) at the start, \(Self.loadAverage()) at the end"])
        if idleOnly {
            table.print()
            return
        }

        // Panning: one untimed round, then `runs` timed ones.
        var rates: [Double] = []
        var p99s: [Double] = []
        // CPU of every process (this one, the clients, included) over the timed rounds, per update.
        let panRoles = roles + [("bench clients", getpid())]
        var panCPU = [Double](repeating: 0, count: panRoles.count)
        var panUpdates = 0
        for round in 0..<rounds {
            let cpuBefore = panRoles.map { ProcStatus.cpuSeconds(pid: $0.pid) ?? 0 }
            fleet.resetLatencies()
            let before = fleet.completedSteps
            let start = Clock.now()
            fleet.go(steps: (round * steps)..<((round + 1) * steps))
            let done = await fleet.wait(seconds: 120, forSteps: before + panning * steps)
            let seconds = Clock.now() - start
            let updates = fleet.completedSteps - before
            let sorted = fleet.latencies.sorted()
            if round > 0 {
                for (k, role) in panRoles.enumerated() { panCPU[k] += (ProcStatus.cpuSeconds(pid: role.pid) ?? 0) - cpuBefore[k] }
                panUpdates += updates
                rates.append(Double(updates) / seconds)
                p99s.append(Summary.percentile(sorted: sorted, 99))
            }
            table.add([round == 0 ? "panning, warm-up (not counted)" : "panning, run \(round)",
                       "\(Format.number(Double(updates) / seconds)) updates/s",
                       "\(Format.int(updates)) updates in \(Format.number(seconds, 2)) s, p50 \(Format.ms(Summary.percentile(sorted: sorted, 50))) ms, p99 \(Format.ms(Summary.percentile(sorted: sorted, 99))) ms\(done ? "" : " (UNFINISHED)")"])
            if !done { break }
        }
        let rate = Summary(rates)
        table.add(["panning, median (min–max)", "\(rate.text()) updates/s",
                   "with \(Format.int(idle)) idle clients connected; target >= 15,000: \(rate.median >= 15_000 ? "MET" : "NOT MET"); version gaps \(fleet.versionGaps)"])
        if panUpdates > 0 {
            let perUpdate = panCPU.map { $0 * 1e6 / Double(panUpdates) }
            table.add(["panning, CPU per update", "\(Format.number(perUpdate.reduce(0, +), 1)) µs",
                       zip(panRoles, perUpdate).map { "\($0.0.name) \(Format.number($0.1, 1))" }.joined(separator: ", ")])
        }
        table.print()

        // Latency: one more client alone, one pan at a time.
        var planner = PanPlanner(seed: common.seed &+ 99, spans: 0.5...2.0, step: 0.1, zoom: 1.1)
        let first = viewportText("latency", planner.next(in: snapshot))
        _ = shadow.answer(first.line)
        var latencyPlan: [WSFleet.Step] = []
        while latencyPlan.count < latencySteps {
            let pan = viewportText("latency", planner.next(in: snapshot))
            if let version = shadow.answer(pan.line).answer.version { latencyPlan.append(.init(text: pan.text, version: version)) }
        }
        let single = WSFleet(port: port)
        single.connectPanning(name: "latency", first: first.text, plan: latencyPlan)
        guard await single.wait(seconds: 30, until: { single.connectedCount == 1 }) else { throw pipeline.failure("latency client did not connect") }
        single.go(steps: 0..<latencySteps)
        await single.wait(seconds: 120, forSteps: latencySteps)
        let sorted = single.latencies.sorted()
        var latency = Table("gateway latency: one client panning alone (\(Format.int(idle + panning)) others connected, idle), \(Format.int(stations)) stations",
                            header: ["pans", "p50 ms", "p99 ms", "max ms", "target p99 <= 10 ms"])
        latency.add([Format.int(sorted.count), Format.ms(Summary.percentile(sorted: sorted, 50)), Format.ms(Summary.percentile(sorted: sorted, 99)),
                     Format.ms(sorted.last ?? .nan), Summary.percentile(sorted: sorted, 99) <= 0.010 ? "MET" : "NOT MET"])
        latency.print()
    }

    /// `/proc/loadavg`'s 1, 5 and 15 minute load averages (the window's conditions).
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
