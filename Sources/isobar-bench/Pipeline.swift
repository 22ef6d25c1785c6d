import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// A running Isobar pipeline for the end-to-end benchmarks: `isobar broker`, the filter and the
/// formatter each under `isobar plug` (as `isobar up` runs them), on fresh loopback ports, plus
/// one `BusClient` in this process that plays every map client (subscribed to `annotations/`).
final class Pipeline {
    let processes: [Process]
    let client: BusClient
    let clients = ClientTable()
    let scratch: String
    /// The bus endpoints every process of this pipeline uses (ISOBAR_PUB, ISOBAR_SUB).
    let environment: [String: String]
    /// The `isobar filter` process (the filter plug's child).
    let filterPID: Int32
    /// Every process of the pipeline by role, for CPU accounting (`ProcStatus.cpuSeconds`).
    let roles: [(name: String, pid: Int32)]
    static let probe = "bench-probe"

    init(isobar: String, name: String) throws {
        scratch = Paths.scratch(name)
        let (frontend, backend) = FreePort.endpoints()
        let env = ["ISOBAR_PUB": frontend, "ISOBAR_SUB": backend]
        environment = env
        var started: [Process] = []
        do {
            started.append(try Children.start(isobar, ["broker"], environment: env, log: scratch + "/broker.log"))
            let filterPlug = try Children.start(
                isobar, ["plug", "--name", "filter"] + FilterEngine.subscriptions.flatMap { ["--sub", $0] } + ["--", isobar, "filter"],
                environment: env, log: scratch + "/filter.log")
            started.append(filterPlug)
            let formatPlug = try Children.start(isobar, ["plug", "--name", "format"] + FormatEngine.subscriptions.flatMap { ["--sub", $0] }
                                                         + ["--", isobar, "format"], environment: env, log: scratch + "/format.log")
            started.append(formatPlug)
            guard let pid = ProcStatus.waitForChild(of: filterPlug.processIdentifier),
                  let formatPID = ProcStatus.waitForChild(of: formatPlug.processIdentifier) else {
                throw ValidationError("a plug started no stage; logs in \(scratch)")
            }
            filterPID = pid
            roles = [("broker", started[0].processIdentifier), ("filter plug", filterPlug.processIdentifier), ("filter", pid),
                     ("format plug", formatPlug.processIdentifier), ("format", formatPID), ("clients (this process)", getpid())]
            client = try BusClient(endpoints: BrokerEndpoints(frontend: frontend, backend: backend), topics: ["annotations/"])
        } catch {
            Children.stop(started)
            throw error
        }
        processes = started
        let table = clients
        client.start(onMessage: { topic, payload in table.receive(topic: topic, payload: payload) },
                     onDrained: { table.onDrained?() })
    }

    /// Set when a run failed: `stop` then keeps the logs that the error message names.
    var keepLogs = false

    /// Stops every process and removes the logs unless `keepLogs`.
    func stop() {
        client.close()
        Children.stop(processes)
        if !keepLogs { try? FileManager.default.removeItem(atPath: scratch) }
    }

    /// An error naming the logs, which are then kept.
    func failure(_ message: String) -> ValidationError {
        keepLogs = true
        return ValidationError("\(message); logs in \(scratch)")
    }

    /// The probe client's viewport: a tiny box in the ocean, so its answers are small.
    private static var probeViewport: [UInt8] {
        var writer = JSONWriter()
        Viewport(client: probe, region: Region(clampingCenter: Coordinate(latitude: -60, longitude: -140),
                                               latitudeDelta: 0.01, longitudeDelta: 0.01)).write(to: &writer)
        return Array(writer.bytes.dropLast())
    }

    private static let probeResync = Array(#"{"type":"resync","client":"bench-probe","reason":"bench probe"}"#.utf8)

    /// Sends the probe client's viewport until an answer comes back through filter and format:
    /// then every subscription on the way is in place (no bare sleeps).
    func handshake(timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while clients.messages(Self.probe) == 0 {
            guard Date() < deadline else { throw failure("pipeline handshake: no answer in \(Int(timeout)) s") }
            client.publish(Self.probeViewport)
            waitFor(seconds: 0.1) { self.clients.messages(Self.probe) > 0 }
        }
    }

    /// Polls `condition` every millisecond for at most `seconds`; returns whether it became true.
    @discardableResult
    func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Publishes a snapshot (station lines, then the end marker) in windows of `window` lines; after
    /// each window a resync for the probe client, answered only once the filter has read everything
    /// before it, so at most two windows are ever queued (below every high-water mark: no drops).
    /// Returns when the filter answers with the new snapshot in force.
    func load(_ lines: [[UInt8]], id: String, window: Int = 20_000) throws {
        try handshake()
        var asked = 0
        let base = clients.messages(Self.probe)
        var index = 0
        while index < lines.count {
            let end = min(lines.count, index + window)
            client.publish(lines: Array(lines[index..<end]))
            index = end
            client.publish(Self.probeResync)
            asked += 1
            let needed = base + asked - 1
            guard waitFor(seconds: 120, { self.clients.messages(Self.probe) >= needed }) else {
                throw failure("loading: the filter stopped answering")
            }
        }
        // A final probe is answered after the end marker was handled: it names the snapshot in force.
        let before = clients.messages(Self.probe)
        client.publish(Self.probeResync)
        guard waitFor(seconds: 120, { self.clients.messages(Self.probe) > before && self.clients.lastSnapshot(Self.probe) == id }) else {
            throw failure("loading: snapshot \(id) did not take effect (lost stations?)")
        }
    }
}
