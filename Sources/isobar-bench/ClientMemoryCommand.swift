import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost
import Synchronization

/// `client-memory`: what an idle client costs the filter in memory. `isobar filter` (a pipe, no
/// bus) gets a generated snapshot, then `clients` gateway clients' viewports (random regions of
/// 0.5–2° anywhere on land, the default limit), one answer each; VmRSS before and after, per client.
struct ClientMemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-memory", abstract: "Filter memory per connected idle client (gateway clients, one viewport each).")

    @OptionGroup var common: CommonOptions
    @Option(help: "Stations in the snapshot.")
    var stations = 100_000
    @Option(help: "Clients to connect.")
    var clients = 100_000

    func run() async throws {
        let generated = StationGenerator(world: try WorldStations.load(path: common.world), seed: common.seed).stations(count: stations)
        let snapshot = StationGenerator.snapshotLines(generated).lines
        var perClient: [Double] = [], annotations: [Double] = [], before: [Double] = [], after: [Double] = []
        for run in 0..<common.runs {
            let counter = AnswerCounter()
            // A lease timeout longer than the run: the clients stay without a gateway leasing them.
            let process = try await Children.start(Paths.isobar(common.isobar), ["filter", "--lease-timeout", "3600"], stdin: .pipe) { stream, event in
                if stream == .standardOutput, case .line(let line) = event { counter.receive(line) }
            }
            guard let input = process.process.stdin else { throw ValidationError("client-memory: no stdin") }
            var bytes: [UInt8] = []
            for line in snapshot { bytes.append(contentsOf: line); bytes.append(0x0A) }
            try bytes.withUnsafeBytes { try input.writeAll($0) }
            // The snapshot is in once a probe viewport is answered: the filter has nothing else
            // to do then, so RSS is read at once (no settling sleep).
            try Array((Self.viewport("probe", 0, 0, 1, seed: 0) + "\n").utf8).withUnsafeBytes { try input.writeAll($0) }
            try await counter.wait(for: 1)
            let pid = process.processIdentifier
            let rssBefore = Double(ProcStatus.bytes("VmRSS", pid: pid) ?? 0)
            var rng = SplitMix64(seed: common.seed &+ UInt64(run))
            var batch: [UInt8] = []
            for n in 0..<clients {
                let latitude = rng.uniform(-50...60), longitude = rng.uniform(-170...170), span = rng.uniform(0.5...2)
                batch.append(contentsOf: (Self.viewport("idle-\(n)", latitude, longitude, span, seed: n) + "\n").utf8)
                if batch.count >= 1 << 20 { try batch.withUnsafeBytes { try input.writeAll($0) }; batch.removeAll(keepingCapacity: true) }
            }
            try batch.withUnsafeBytes { try input.writeAll($0) }
            // Every client answered: the filter is idle again.
            try await counter.wait(for: 1 + clients)
            let rssAfter = Double(ProcStatus.bytes("VmRSS", pid: pid) ?? 0)
            before.append(rssBefore)
            after.append(rssAfter)
            perClient.append((rssAfter - rssBefore) / Double(clients))
            annotations.append(Double(counter.upserts) / Double(clients))
            // End of input: it exits on its own.
            input.close()
            _ = await process.process.waitForExit()
            await Children.stop(process)
        }
        var table = Table("client-memory: isobar filter with \(Format.int(stations)) stations, \(Format.int(clients)) idle gateway clients, \(common.runs) runs",
                          header: ["measure", "median (min–max)"])
        table.add(["VmRSS before the clients, MB", Summary(before).text(1, scale: 1 / 1_048_576)])
        table.add(["VmRSS with the clients, MB", Summary(after).text(1, scale: 1 / 1_048_576)])
        table.add(["per client, bytes", Summary(perClient).text(0)])
        table.add(["annotations held per client (mean)", Summary(annotations).text(1)])
        table.note("each client: one viewport of 0.5–2° (limit 500) with `gateway` and `ref`, answered once; no lease, no heartbeat")
        table.note("bounded by `filter --max-clients` (default 100,000): the least recently seen client is dropped to make room")
        table.print()
    }

    static func viewport(_ client: String, _ latitude: Double, _ longitude: Double, _ span: Double, seed: Int) -> String {
        // The center+span message as text: the ranges above are always valid regions.
        #"{"type":"viewport","client":"\#(client)","center":{"latitude":\#(latitude),"longitude":\#(longitude)},"#
            + #""span":{"latitudeDelta":\#(span),"longitudeDelta":\#(span * 1.25)},"gateway":"gw-bench","ref":1}"#
    }
}

/// Counts the filter's `visible` answers and their upserts as they stream out (each stdout line
/// of the filter, from its `OneShotProcess`'s copy), and wakes the one waiting for a count.
final class AnswerCounter: Sendable {
    private struct State {
        var answers = 0
        var upserts = 0
        /// The count being waited for, and the latch raised when it is reached.
        var target: (count: Int, reached: Latch)?
    }

    private let state = Mutex(State())

    var upserts: Int { state.withLock { $0.upserts } }

    func receive(_ line: UnsafeRawBufferPointer) {
        guard let object = try? JSONObject(parsing: line), (try? object.requireString("type")) == "visible",
              let upsert = object.field("upsert") else { return }
        let items = object.arrayElements(upsert).count
        let reached: Latch? = state.withLock { state in
            state.answers += 1
            state.upserts += items
            guard let target = state.target, state.answers >= target.count else { return nil }
            state.target = nil
            return target.reached
        }
        reached?.raise()
    }

    /// Waits until `count` answers came; the two-minute deadline only guards against a hang.
    func wait(for count: Int) async throws {
        let reached = Latch()
        let already = state.withLock { state in
            if state.answers >= count { return true }
            state.target = (count, reached)
            return false
        }
        guard !already else { return }
        let late = await reached.sleep(for: .seconds(120))
        if late {
            let answers = state.withLock { $0.answers }
            throw ValidationError("client-memory: \(answers) of \(count) answers in 2 minutes")
        }
    }
}
