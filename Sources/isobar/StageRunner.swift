import ArgumentParser
import IsobarCore
import IsobarHost
import IsobarStdio
import Logging

/// Runs a ``LineStage`` the one way every built-in stage runs: on stdin/stdout, or with `--bus` in
/// process on the bus, subscribed to what the stage consumes (``Stage/subscriptions``, for a shard
/// its partitions only) and publishing exactly what `isobar plug` would publish for it. The clock
/// is monotonic: stages only measure intervals.
enum StageRunner {
    static func run<S: LineStage>(_ engine: S, bus: Bool, shard: Shard = .whole, maxLineBytes: Int) async throws {
        let tick: (inout JSONWriter) -> Void = { out in engine.tick(now: LineInput.monotonicSeconds(), into: &out) }
        let handle: (UnsafeRawBufferPointer, inout JSONWriter) -> Void = { line, out in
            engine.handle(line: line, now: LineInput.monotonicSeconds(), into: &out)
        }
        if bus {
            let name = shard.isWhole ? S.stage : "\(S.stage)-\(shard.index)"
            let options = BusStage.Options(name: name, subscriptions: shard.subscriptions(S.subscriptions),
                                           maxLineLength: maxLineBytes, tickEvery: engine.tickEvery)
            let status = await BusStage.run(options, logger: Logger(label: name), spill: { engine.spill(to: $0) },
                                            start: { engine.start(into: &$0) }, tick: tick, handle: handle)
            if status != 0 { throw ExitCode(status) }
            return
        }
        var first = JSONWriter()
        engine.start(into: &first)
        if !first.bytes.isEmpty {
            LineOutput.standardOutput.write(&first)
            LineOutput.standardOutput.flush()
        }
        engine.spill { LineOutput.standardOutput.write(&$0) }
        LineInput.runStage(stage: S.stage, maxLineLength: maxLineBytes, tickEvery: engine.tickEvery, tick: tick, handle: handle)
    }
}
