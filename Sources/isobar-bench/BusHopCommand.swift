import ArgumentParser
import Foundation
import IsobarBus

/// `bus-hop`: N messages of ~200 bytes through broker -> `isobar plug --sub hopA -- isobar-bench
/// pass-through` -> broker -> a subscriber, against raw libzmq PUB -> SUB (one frame, tcp on
/// loopback, same window) in this process. Runs alternate between the two paths.
struct BusHopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bus-hop", abstract: "Messages/s through broker + plug + pass-through stage vs raw libzmq PUB->SUB.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Messages per run.")
    var count = 1_000_000
    @Option(help: "Bytes per message.")
    var size = 200
    @Option(help: "Most messages in flight (sent, not yet received); below every high-water mark on the way.")
    var window = 20_000

    func run() async throws {
        let traffic = HopTraffic(count: count, size: size, window: window)
        let isobar = Paths.isobar(common.isobar)
        let scratch = Paths.scratch("hop")
        let (frontend, backend) = FreePort.endpoints()
        let env = ["ISOBAR_PUB": frontend, "ISOBAR_SUB": backend]
        let broker = try await Children.start(isobar, ["broker"], environment: env, log: scratch + "/broker.log")
        var children = [broker]
        var keepLogs = true
        try await ensuring({
            children.append(try await Children.start(isobar, ["plug", "--name", "hop", "--sub", "hopA", "--", Paths.bench, "pass-through"],
                                                     environment: env, log: scratch + "/plug.log"))
            try await measure(traffic, frontend: frontend, backend: backend, scratch: scratch)
            keepLogs = false
        }, finally: {
            await Children.stop(children)
            if !keepLogs { try? FileManager.default.removeItem(atPath: scratch) }
        })
    }

    /// Every path's runs, alternating, on a running broker and plug; prints the table.
    private func measure(_ traffic: HopTraffic, frontend: String, backend: String, scratch: String) async throws {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        let subscriber = try ZMQSocket(context, .sub)
        try publisher.connect(frontend)
        try subscriber.subscribe("hopB")
        try subscriber.connect(backend)
        defer { publisher.close() }
        let receiver = try HopReceiver(socket: subscriber)
        defer { receiver.close() }
        let sendBus: (inout [UInt8]) -> Void = { message in _ = try? publisher.send(topic: "hopA", payload: message) }
        guard await HopTraffic.handshake(send: sendBus, receiver: receiver, probe: traffic.template(probe: true)) else {
            throw ValidationError("bus-hop: no probe came back through broker and plug in 15 s; logs in \(scratch)")
        }

        var isobarRuns: [HopTraffic.Result] = []
        var rawRuns: [HopTraffic.Result] = []
        var rawBatchedRuns: [HopTraffic.Result] = []
        var isobarSingleRuns: [HopTraffic.Result] = []
        for _ in 0..<common.runs {
            rawRuns.append(try await Self.raw(traffic, batched: false))
            // The Isobar path publishes as every Isobar sender does (`TopicBatch`).
            isobarRuns.append(await traffic.runBatched(topic: Array("hopA".utf8), receiver: receiver) { topic, payload in
                _ = try? publisher.send(topicBytes: topic, payload: payload)
            })
            rawBatchedRuns.append(try await Self.raw(traffic, batched: true))
            // A sender that publishes each line as its own bus message (as a viewport always is).
            isobarSingleRuns.append(await traffic.run(send: sendBus, receiver: receiver))
        }

        let rate: (HopTraffic.Result) -> Double = { Double($0.received) / $0.seconds }
        let rawRates = Summary(rawRuns.map(rate)), isobarRates = Summary(isobarRuns.map(rate))
        let ratios = Summary(zip(isobarRuns, rawRuns).map { rate($0) / rate($1) })
        let lost = isobarRuns.map { count - $0.received }.reduce(0, +)
        let rawLost = rawRuns.map { count - $0.received }.reduce(0, +)
        let rawBatchedLost = rawBatchedRuns.map { count - $0.received }.reduce(0, +)
        var table = Table("bus-hop: \(Format.int(count)) x \(size)-byte messages, window \(Format.int(window)), \(common.runs) runs",
                          header: ["path", "msg/s median (min–max)", "lost (all runs)", "in order"])
        table.add(["raw libzmq PUB->SUB (tcp, 1 frame)", rawRates.text(), Format.int(rawLost), rawRuns.allSatisfy(\.inOrder) ? "yes" : "NO"])
        table.add(["broker -> plug -> pass-through -> plug -> broker -> SUB", isobarRates.text(), Format.int(lost),
                   isobarRuns.allSatisfy(\.inOrder) ? "yes" : "NO"])
        table.add(["ratio isobar/raw (per run)", ratios.text(2), "", ""])
        table.add(["for reference: raw PUB->SUB, lines batched like the bus", Summary(rawBatchedRuns.map(rate)).text(), Format.int(rawBatchedLost),
                   rawBatchedRuns.allSatisfy(\.inOrder) ? "yes" : "NO"])
        table.add(["ratio isobar/raw, both batched (per run)", Summary(zip(isobarRuns, rawBatchedRuns).map { rate($0) / rate($1) }).text(2), "", ""])
        let singleLost = isobarSingleRuns.map { count - $0.received }.reduce(0, +)
        table.add(["isobar path, sender one line per bus message", Summary(isobarSingleRuns.map(rate)).text(), Format.int(singleLost),
                   isobarSingleRuns.allSatisfy(\.inOrder) ? "yes" : "NO"])
        table.add(["ratio isobar/raw, both one line per message (per run)", Summary(zip(isobarSingleRuns, rawRuns).map { rate($0) / rate($1) }).text(2), "", ""])
        table.note("stage: `isobar-bench pass-through` (copies stdin to stdout, rewriting `\"type\":\"hopA\"` to `hopB`; no JSON parsing)")
        table.note("isobar path: `isobar broker`; `isobar plug --name hop --sub hopA -- isobar-bench pass-through`; tcp loopback")
        table.note("one line per message: the bench sends each line as its own bus message (the plug still batches each read of its stage's stdout, as it always does)")
        table.note("the bench publishes like every Isobar sender: consecutive same-topic lines in hand go as one bus message of up to 64 KiB (TopicBatch), flushed before any wait; the plug does the same with each read of its stage's stdout; the subscriber counts every line")
        table.note("target: isobar >= 50% of raw with none lost: \(ratios.median >= 0.5 && lost == 0 ? "MET" : "NOT MET")")
        table.print()
    }

    /// One raw run on fresh sockets: PUB bound on a free loopback port, SUB connected, one frame per
    /// message; `batched`: one frame per batch of lines joined by `\n`, as the bus batches (a reference
    /// for what batching alone gives the transport).
    static func raw(_ traffic: HopTraffic, batched: Bool) async throws -> HopTraffic.Result {
        let context = try ZMQContext()
        let publisher = try ZMQSocket(context, .pub)
        let subscriber = try ZMQSocket(context, .sub)
        defer { publisher.close() }
        let endpoint = "tcp://127.0.0.1:\(FreePort.next())"
        try publisher.bind(endpoint)
        try subscriber.subscribe("")
        try subscriber.connect(endpoint)
        let receiver = try HopReceiver(socket: subscriber)
        defer { receiver.close() }
        let send: (inout [UInt8]) -> Void = { message in _ = try? publisher.send(message) }
        guard await HopTraffic.handshake(send: send, receiver: receiver, probe: traffic.template(probe: true)) else {
            throw ValidationError("bus-hop: raw PUB->SUB handshake failed")
        }
        guard batched else { return await traffic.run(send: send, receiver: receiver) }
        // No topic frame on the raw path: the batch's payload is the whole frame.
        return await traffic.runBatched(topic: [], receiver: receiver) { _, payload in _ = try? publisher.send(payload) }
    }
}
