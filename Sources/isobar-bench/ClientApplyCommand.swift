import ArgumentParser
import Foundation
import IsobarClient
import IsobarCore

/// `client-apply`: the client library alone, in process. An in-process filter with the formatter
/// chained (`FilterOptions.chainedFormat`) answers `clients` x `steps` pans of the `clients`
/// workload (jumping around by default) with the `annotations` lines a client receives; the timed
/// part applies them, in the order written, to one `AnnotationFollower` per client (the set and version rules every client holds)
/// (`apply(storage:)`, as the `clients` benchmark's thousand clients do). No sockets and no other
/// process share the cores, so a change to the client's reader or set shows here without the
/// pipeline's noise.
struct ClientApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-apply", abstract: "Client sets applying annotations in process: messages/s and µs per update.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Number of clients.")
    var clients = 1000
    @Option(help: "Updates per client.")
    var steps = 60
    @Option(help: "Stations loaded.")
    var stations = 100_000
    @Option(help: "Largest pan step, as a fraction of the span (0.5: jumping around; 0.1: a finger dragging the map).")
    var panStep = 0.5
    @Option(help: "Largest zoom factor of one step.")
    var zoomStep = 2.0
    @Flag(help: "Apply with the app's library instead (IsobarClient's MapState.receive on each text frame, as the WebSocket hands it over).")
    var library = false

    func run() throws {
        let generated = StationGenerator(world: try WorldStations.load(path: common.world), seed: common.seed).stations(count: stations)
        let (_, lines) = StationGenerator.snapshotLines(generated)
        var options = FilterOptions()
        options.maxClients = .max
        options.chainedFormat = ResolvedPresentation(field: .temperature)
        let engine = FilterEngine(options: options)
        var out = JSONWriter(capacity: 1 << 20)
        for line in lines { line.withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &out) } }
        guard let snapshot = engine.snapshot(for: .today) else { throw ValidationError("the filter holds no snapshot") }
        // Every client's pans, interleaved as a thousand clients' would arrive: (client, line).
        var messages: [(client: Int, line: [UInt8])] = []
        var planners = (0..<clients).map {
            PanPlanner(seed: common.seed &+ 10_000 &+ UInt64($0), spans: 0.5...2.0, step: panStep, zoom: zoomStep)
        }
        for _ in 0..<steps {
            for client in 0..<clients {
                var writer = JSONWriter()
                Viewport(client: String(format: "c%04d", client), region: planners[client].next(in: snapshot)).write(to: &writer)
                out.bytes.removeAll(keepingCapacity: true)
                writer.bytes.withUnsafeBytes { engine.handle(line: UnsafeRawBufferPointer(rebasing: $0.dropLast()), now: 1_000, into: &out) }
                var start = 0
                for (i, byte) in out.bytes.enumerated() where byte == 0x0A {
                    messages.append((client, Array(out.bytes[start..<i])))
                    start = i + 1
                }
            }
        }
        let bytes = messages.reduce(0) { $0 + $1.line.count }
        var rates: [Double] = []
        var table = Table("client-apply: \(Format.int(clients)) client sets, \(Format.int(messages.count)) annotations messages (\(Format.number(Double(bytes) / Double(max(1, messages.count)), 0)) bytes each on average), \(Format.int(stations)) stations, pan steps up to \(panStep) x span, zoom steps up to \(zoomStep)x",
                          header: ["run", "messages/s", "µs per message", "items held at the end"])
        if library {
            try runLibrary(messages, table: &table, clients: clients)
            return
        }
        var memory = ""
        for run in 0...common.runs {
            let rssBefore = ProcStatus.bytes("VmRSS", pid: getpid())
            var sets = Array(repeating: AnnotationFollower(), count: clients)
            var failed = 0
            let start = Clock.now()
            for message in messages {
                if (try? sets[message.client].apply(storage: message.line)) != .applied { failed += 1 }
            }
            let seconds = Clock.now() - start
            guard failed == 0 else { throw ValidationError("\(failed) messages were not applied") }
            let held = sets.reduce(0) { $0 + $1.set.count }
            if run == 0 { memory = Self.memory(from: rssBefore, clients: clients, held: held) }
            if run > 0 { rates.append(Double(messages.count) / seconds) }
            table.add([run == 0 ? "warm-up (not counted)" : "\(run)", Format.number(Double(messages.count) / seconds),
                       Format.number(seconds / Double(messages.count) * 1e6, 2), Format.int(held)])
        }
        let summary = Summary(rates)
        table.add(["median (min–max)", summary.text(0), Format.number(1e6 / summary.median, 2), ""])
        print(table.render())
        print(memory)
    }

    /// Memory per client: the process's VmRSS growth over the warm-up run (the states made and
    /// filled; later runs reuse the memory the allocator kept), per client and per item held.
    static func memory(from before: Int?, clients: Int, held: Int) -> String {
        guard let before, let after = ProcStatus.bytes("VmRSS", pid: getpid()) else { return "memory per client: VmRSS unreadable" }
        let grown = Double(after - before)
        return "memory per client (VmRSS growth over the warm-up, \(Format.int(clients)) clients holding \(Format.int(held)) items): "
            + "\(Format.number(grown / Double(clients) / 1024, 1)) KiB per client, \(Format.number(grown / Double(max(1, held)), 0)) bytes per item held"
    }

    /// `--library`: one `MapState` per client (what `IsobarClient` holds), each message given as
    /// the `String` a WebSocket text frame arrives as (made before the clock starts).
    private func runLibrary(_ messages: [(client: Int, line: [UInt8])], table: inout Table, clients: Int) throws {
        let frames = messages.map { (client: $0.client, text: String(decoding: $0.line, as: UTF8.self)) }
        var rates: [Double] = []
        var memory = ""
        for run in 0...common.runs {
            let rssBefore = ProcStatus.bytes("VmRSS", pid: getpid())
            var states = (0..<clients).map { MapState(client: String(format: "c%04d", $0)) }
            let start = Clock.now()
            for frame in frames { _ = states[frame.client].receive(frame.text) }
            let seconds = Clock.now() - start
            guard states.allSatisfy({ !$0.isBroken }) else { throw ValidationError("a client's set broke") }
            let held = states.reduce(0) { $0 + $1.annotationCount }
            if run == 0 { memory = Self.memory(from: rssBefore, clients: clients, held: held) }
            if run > 0 { rates.append(Double(frames.count) / seconds) }
            table.add([run == 0 ? "warm-up (not counted)" : "\(run) (library)", Format.number(Double(frames.count) / seconds),
                       Format.number(seconds / Double(frames.count) * 1e6, 2), Format.int(held)])
        }
        let summary = Summary(rates)
        table.add(["median (min–max)", summary.text(0), Format.number(1e6 / summary.median, 2), ""])
        print(table.render())
        print(memory)
    }
}
