import IsobarCore
import IsobarStdio
import Logging
import ServiceLifecycle

/// `isobar fetch`: polls the two feeds and writes snapshots, warnings, errors and status lines as
/// NDJSON on stdout; answers resync requests read from stdin.
///
/// With `once`, fetches each source one time and returns 0 when both succeeded, 1 otherwise.
/// Otherwise runs until SIGINT or SIGTERM (or until stdout's reader goes away) and returns 0.
/// Invalid options are logged in one line and return 2.
public func runFetch(_ options: FetchOptions, logger: Logger) async -> Int32 {
    LineOutput.ignoreSIGPIPE()
    let output = LineOutput.standardOutput
    let client = FeedClient(options: options)
    let fetcher: FeedFetcher
    do {
        fetcher = try FeedFetcher(options: options, client: client, output: output, logger: logger)
    } catch {
        logger.error("\(error)")
        await client.shutdown()
        return 2
    }
    if options.once {
        let ok = await fetcher.round()
        output.flush()
        await client.shutdown()
        return ok ? 0 : 1
    }
    logger.info("polling \(options.today) and \(options.tomorrow) every \(FeedClient.seconds(options.interval)) s")
    let gate = ResyncGate(interval: options.resyncInterval) { reason in await fetcher.resync(reason: reason) }
    FetchInput.start(output: output) { reason in gate.request(reason: reason) }
    // One runtime for every long-running process: a ServiceGroup whose graceful-shutdown signals
    // (SIGTERM, SIGINT) cancel the polling; the fetcher's own end (stdout closed) ends the group.
    let group = ServiceGroup(services: [FetchService(fetcher: fetcher, logger: logger)],
                             gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    do {
        try await group.run()
    } catch {
        logger.error("fetch stopped: \(error)")
    }
    output.flush()
    await client.shutdown()
    return 0
}
