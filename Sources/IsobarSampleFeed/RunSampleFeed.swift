import IsobarStdio
import Logging
import ServiceLifecycle
import IsobarNet

/// `isobar sample-feed`: serves `/today.json`, `/tomorrow.json` (drifting onX data with ETag and
/// Last-Modified, optional faults) and `/health` until SIGINT or SIGTERM, then returns 0.
///
/// The sample feed is not a pipeline stage, so its stdout is free: it prints exactly one line, the
/// base URL (`http://127.0.0.1:PORT`), so a script that asked for port 0 can read the port. Setup
/// problems (bad option, missing fixture, port in use) are thrown as `SampleFeedError`, whose
/// description is one line saying what to change.
public func runSampleFeed(_ options: SampleFeedOptions, logger: Logger) async throws -> Int32 {
    LineOutput.ignoreSIGPIPE()
    let server = try await SampleFeedServer.start(options, logger: logger)
    let drift = options.drift ? "drifting every \(FeedClient.seconds(options.period)) s (seed \(options.seed))" : "without drift"
    let faults = [options.fault.map { "fault \($0)" }, options.delay > 0 ? "delay \(options.delay) s" : nil,
                  options.errorRate > 0 ? "error rate \(options.errorRate)" : nil].compactMap { $0 }
    logger.notice("sample feed on \(server.baseURL)/today.json and /tomorrow.json, \(drift)\(faults.isEmpty ? "" : ", " + faults.joined(separator: ", "))")
    LineOutput.standardOutput.write(Array((server.baseURL + "\n").utf8))
    LineOutput.standardOutput.flush()
    let group = ServiceGroup(services: [SampleFeedService(server: server, logger: logger)],
                             gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await group.run()
    return 0
}
