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
        if bus {
            let name = shard.isWhole ? S.stage : "\(S.stage)-\(shard.index)"
            let options = BusStage.Options(name: name, subscriptions: shard.subscriptions(S.subscriptions),
                                           maxLineLength: maxLineBytes, tickEvery: engine.tickEvery)
            let status = await BusStage.run(options, logger: Logger(label: name),
                                            tick: { out in engine.tick(now: LineInput.monotonicSeconds(), into: &out) }) { line, out in
                engine.handle(line: line, now: LineInput.monotonicSeconds(), into: &out)
            }
            if status != 0 { throw ExitCode(status) }
            return
        }
        LineInput.runStage(stage: S.stage, maxLineLength: maxLineBytes, tickEvery: engine.tickEvery,
                           tick: { out in engine.tick(now: LineInput.monotonicSeconds(), into: &out) }) { line, out in
            engine.handle(line: line, now: LineInput.monotonicSeconds(), into: &out)
        }
    }
}
