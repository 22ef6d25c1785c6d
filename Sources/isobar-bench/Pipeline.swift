import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// A running Isobar pipeline for the end-to-end benchmarks: `isobar broker`, the filter and the
/// formatter each on the bus in process (`--bus`, as `isobar up` runs them) or, with `plugs`, each
/// under `isobar plug` (as `isobar up --plugs` does), on fresh loopback ports, plus
/// one `BusClient` in this process that plays every map client (subscribed to `annotations/`, and
/// to `tally` for the benchmarks whose clients are leased like a gateway's).
final class Pipeline {
    let processes: [Child]
    let client: BusClient
    let clients = ClientTable()
    let scratch: String
    /// The bus endpoints every process of this pipeline uses (ISOBAR_PUB, ISOBAR_SUB).
    let environment: [String: String]
    /// The `isobar filter` processes (with `plugs`, each filter plug's child): one, or one per shard.
    let filterPIDs: [Int32]
    /// The first (or only) filter.
    var filterPID: Int32 { filterPIDs[0] }
    /// Every process of the pipeline by role, for CPU accounting (`ProcStatus.cpuSeconds`).
    let roles: [(name: String, pid: Int32)]
    /// The probe client of the first shard (the only one when not sharded).
    static let probe = "bench-probe"
    /// One probe client per filter shard (a name in that shard's partitions), so the handshake
    /// and the snapshot load wait for every shard.
    let probes: [String]

    /// `filters` > 1 runs that many filter shards (`plug --shard k/N ... -- filter --shard k/N`);
    /// `filterArguments` go to every `isobar filter`.
    /// `onlyProbes`: this process hears only its probe clients' annotations (the gateway benchmark,
    /// whose map clients are WebSockets: hearing theirs too would double the broker's fan-out and
    /// load this process with work no client does).
    init(isobar: String, name: String, filters: Int = 1, filterArguments: [String] = [], onlyProbes: Bool = false,
         plugs: Bool = false, chainFormat: Bool = false) async throws {
        scratch = Paths.scratch(name)
        let (frontend, backend) = FreePort.endpoints()
        let env = ["ISOBAR_PUB": frontend, "ISOBAR_SUB": backend]
        environment = env
        let shards = (0..<filters).map { Shard(index: $0, count: filters) ?? .whole }
        probes = shards.map { shard in
            shard.owns(client: Self.probe) ? Self.probe
                : (0...).lazy.map { "bench-probe-\($0)" }.first { shard.owns(client: $0) } ?? Self.probe
        }
        var started: [Child] = []
        do {
            started.append(try await Children.start(isobar, ["broker"], environment: env, log: scratch + "/broker.log"))
            var filterHosts: [Child] = []
            for shard in shards {
                let sharding = shard.isWhole ? [] : ["--shard", shard.description]
                let hostName = shard.isWhole ? "filter" : "filter-\(shard.index)"
                let filter = [isobar, "filter"] + sharding + filterArguments + (chainFormat ? ["--chain-format"] : [])
                let host = try await Children.start(
                    isobar, plugs ? ["plug", "--name", hostName] + sharding + FilterEngine.subscriptions.flatMap { ["--sub", $0] } + ["--"] + filter
                        : Array(filter.dropFirst()) + ["--bus"],
                    environment: env, log: scratch + "/\(hostName).log")
                started.append(host)
                filterHosts.append(host)
            }
            let formatHost = chainFormat ? nil
                : try await Children.start(isobar, plugs ? ["plug", "--name", "format"] + FormatEngine.subscriptions.flatMap { ["--sub", $0] }
                                        + ["--", isobar, "format"] : ["format", "--bus"], environment: env, log: scratch + "/format.log")
            if let formatHost { started.append(formatHost) }
            var roles: [(name: String, pid: Int32)] = [("broker", started[0].processIdentifier)]
            if plugs {
                // Each plug names its stage's pid in its readiness line.
                let hosts = filterHosts + (formatHost.map { [$0] } ?? [])
                var stages: [pid_t?] = []
                for host in hosts { stages.append(await host.awaitStagePID()) }
                let pids = Array(stages.prefix(filterHosts.count))
                let formatPID = formatHost.map { _ in stages[filterHosts.count] }
                guard pids.allSatisfy({ $0 != nil }), formatPID != .some(nil) else {
                    throw ValidationError("a plug started no stage; logs in \(scratch)")
                }
                filterPIDs = pids.compactMap { $0 }
                for (k, plug) in filterHosts.enumerated() {
                    let label = filters == 1 ? "filter" : "filter \(k)"
                    roles += [("\(label) plug", plug.processIdentifier), (label, filterPIDs[k])]
                }
                if let formatHost, let formatPID = formatPID ?? nil {
                    roles += [("format plug", formatHost.processIdentifier), ("format", formatPID)]
                }
            } else {
                filterPIDs = filterHosts.map(\.processIdentifier)
                for (k, host) in filterHosts.enumerated() {
                    roles.append((filters == 1 ? "filter" : "filter \(k)", host.processIdentifier))
                }
                if let formatHost { roles.append(("format", formatHost.processIdentifier)) }
            }
            self.roles = roles + [("clients (this process)", getpid())]
            client = try BusClient(endpoints: BrokerEndpoints(frontend: frontend, backend: backend), topics: [onlyProbes ? "annotations/\(Self.probe)" : "annotations/", "tally"])
        } catch {
            await Children.stop(started)
            throw error
        }
        processes = started
        let table = clients
        // Waiters re-check their condition once per drain (`Changes`), not once per message.
        client.startInPlace(onLine: { topic, line in table.receive(topic: topic, line: line) },
                     onDrained: {
                         table.onDrained?()
                         Changes.shared.pulse()
                     })
    }

    /// Starts a pipeline, runs `body` with it, and stops it however `body` ends.
    static func run<T>(isobar: String, name: String, filters: Int = 1, filterArguments: [String] = [], onlyProbes: Bool = false,
                       plugs: Bool = false, chainFormat: Bool = false, _ body: (Pipeline) async throws -> T) async throws -> T {
        let pipeline = try await Pipeline(isobar: isobar, name: name, filters: filters, filterArguments: filterArguments,
                                          onlyProbes: onlyProbes, plugs: plugs, chainFormat: chainFormat)
        return try await ensuring({ try await body(pipeline) }, finally: { await pipeline.stop() })
    }

    /// Set when a run failed: `stop` then keeps the logs that the error message names.
    var keepLogs = false

    /// Stops every process and removes the logs unless `keepLogs`. Every benchmark ends a pipeline
    /// with it, however it ended (`run(...)`).
    func stop() async {
        client.close()
        await Children.stop(processes)
        if !keepLogs { try? FileManager.default.removeItem(atPath: scratch) }
    }

    /// An error naming the logs, which are then kept.
    func failure(_ message: String) -> ValidationError {
        keepLogs = true
        return ValidationError("\(message); logs in \(scratch)")
    }

    /// A probe client's viewport: a tiny box in the ocean, so its answers are small.
    private static func probeViewport(_ name: String) -> [UInt8] {
        var writer = JSONWriter()
        Viewport(client: name, region: Region(clampingCenter: Coordinate(latitude: -60, longitude: -140),
                                              latitudeDelta: 0.01, longitudeDelta: 0.01)).write(to: &writer)
        return Array(writer.bytes.dropLast())
    }

    private static func probeResync(_ name: String) -> [UInt8] {
        Array(#"{"type":"resync","client":"\#(name)","reason":"bench probe"}"#.utf8)
    }

    /// Sends each probe client's viewport until an answer comes back through filter and format:
    /// then every subscription on the way is in place, for every shard (no bare sleeps).
    func handshake(timeout: Double = 20) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while probes.contains(where: { clients.messages($0) == 0 }) {
            guard Date() < deadline else { throw failure("pipeline handshake: no answer in \(Int(timeout)) s") }
            for probe in probes where clients.messages(probe) == 0 { client.publish(Self.probeViewport(probe)) }
            // Resent every 0.1 s until answered (ZeroMQ's slow joiner: the first may be lost).
            await waitFor(seconds: 0.1) { self.probes.allSatisfy { self.clients.messages($0) > 0 } }
        }
    }

    /// Waits at most `seconds` for `condition`, checking it again on each change the benchmark
    /// sees (``Changes``: a bus message applied, a line from a child) rather than on a timer;
    /// returns whether it became true. The deadline only guards against a hang.
    @discardableResult
    func waitFor(seconds: Double, _ condition: () -> Bool) async -> Bool {
        await Changes.shared.wait(seconds: seconds, until: condition)
    }

    /// Publishes a snapshot (station lines, then the end marker) in windows of `window` lines; after
    /// each window a resync for every probe client, answered only once its shard has read everything
    /// before it, so at most two windows are ever queued (below every high-water mark: no drops).
    /// Returns when every shard answers with the new snapshot in force.
    func load(_ lines: [[UInt8]], id: String, window: Int = 20_000) async throws {
        try await handshake()
        var asked = 0
        let base = probes.map { clients.messages($0) }
        var index = 0
        while index < lines.count {
            let end = min(lines.count, index + window)
            client.publish(lines: Array(lines[index..<end]))
            index = end
            for probe in probes { client.publish(Self.probeResync(probe)) }
            asked += 1
            let needed = base.map { $0 + asked - 1 }
            guard await waitFor(seconds: 120, { zip(self.probes, needed).allSatisfy { self.clients.messages($0) >= $1 } }) else {
                throw failure("loading: the filter stopped answering")
            }
        }
        // A final probe is answered after the end marker was handled: it names the snapshot in force.
        let before = probes.map { clients.messages($0) }
        for probe in probes { client.publish(Self.probeResync(probe)) }
        guard await waitFor(seconds: 120, {
            zip(self.probes, before).allSatisfy { self.clients.messages($0) > $1 && self.clients.lastSnapshot($0) == id }
        }) else {
            throw failure("loading: snapshot \(id) did not take effect (lost stations?)")
        }
    }
}
