import ArgumentParser
import Foundation
import IsobarCore

/// `client-memory`: what an idle client costs the filter in memory. `isobar filter` (a pipe, no
/// bus) gets a generated snapshot, then `clients` gateway clients' viewports (random regions of
/// 0.5–2° anywhere on land, the default limit), one answer each; VmRSS before and after, per client.
struct ClientMemoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-memory", abstract: "Filter memory per connected idle client (gateway clients, one viewport each).")

    @OptionGroup var common: CommonOptions
    @Option(help: "Stations in the snapshot.")
    var stations = 100_000
    @Option(help: "Clients to connect.")
    var clients = 100_000

    func run() throws {
        let generated = StationGenerator(world: try WorldStations.load(path: common.world), seed: common.seed).stations(count: stations)
        let snapshot = StationGenerator.snapshotLines(generated).lines
        var perClient: [Double] = [], annotations: [Double] = [], before: [Double] = [], after: [Double] = []
        for run in 0..<common.runs {
            let input = Pipe(), output = Pipe()
            // A lease timeout longer than the run: the clients stay without a gateway leasing them.
            let process = try Children.start(Paths.isobar(common.isobar), ["filter", "--lease-timeout", "3600"], stdin: input, stdout: output)
            let counter = AnswerCounter()
            let reader = Thread { counter.read(output.fileHandleForReading) }
            reader.start()
            var bytes = Data()
            for line in snapshot { bytes.append(contentsOf: line); bytes.append(0x0A) }
            try input.fileHandleForWriting.write(contentsOf: bytes)
            // The snapshot is in once a probe viewport is answered.
            try input.fileHandleForWriting.write(contentsOf: Data((Self.viewport("probe", 0, 0, 1, seed: 0) + "\n").utf8))
            try counter.wait(for: 1)
            Thread.sleep(forTimeInterval: 0.5)
            let pid = process.processIdentifier
            let rssBefore = Double(ProcStatus.bytes("VmRSS", pid: pid) ?? 0)
            var rng = SplitMix64(seed: common.seed &+ UInt64(run))
            var batch = Data()
            for n in 0..<clients {
                let latitude = rng.uniform(-50...60), longitude = rng.uniform(-170...170), span = rng.uniform(0.5...2)
                batch.append(contentsOf: (Self.viewport("idle-\(n)", latitude, longitude, span, seed: n) + "\n").utf8)
                if batch.count >= 1 << 20 { try input.fileHandleForWriting.write(contentsOf: batch); batch.removeAll(keepingCapacity: true) }
            }
            try input.fileHandleForWriting.write(contentsOf: batch)
            try counter.wait(for: 1 + clients)
            Thread.sleep(forTimeInterval: 0.5)
            let rssAfter = Double(ProcStatus.bytes("VmRSS", pid: pid) ?? 0)
            before.append(rssBefore)
            after.append(rssAfter)
            perClient.append((rssAfter - rssBefore) / Double(clients))
            annotations.append(Double(counter.upserts) / Double(clients))
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            Children.stop(process)
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

/// Counts the filter's `visible` answers and their upserts as they stream out.
final class AnswerCounter: @unchecked Sendable {
    // @unchecked: the counts are only touched under `lock`.
    private let lock = NSCondition()
    private var answers = 0
    private var upsertCount = 0

    var upserts: Int { lock.withLock { upsertCount } }

    func read(_ handle: FileHandle) {
        var splitter = LineSplitter(maxLineLength: 64 << 20)
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            var found = 0, items = 0
            chunk.withUnsafeBytes { raw in
                splitter.append(raw) { event in
                    guard case .line(let line) = event, let object = try? JSONObject(parsing: line),
                          (try? object.requireString("type")) == "visible", let upsert = object.field("upsert") else { return }
                    found += 1
                    items += object.arrayElements(upsert).count
                }
            }
            lock.withLock {
                answers += found
                upsertCount += items
                lock.broadcast()
            }
        }
    }

    /// Waits until `count` answers came (at most two minutes).
    func wait(for count: Int) throws {
        let deadline = Date().addingTimeInterval(120)
        lock.lock()
        defer { lock.unlock() }
        while answers < count {
            guard lock.wait(until: deadline) else { throw ValidationError("client-memory: \(answers) of \(count) answers in 2 minutes") }
        }
    }
}
