import Dispatch
import IsobarCore
import IsobarStdio
import Logging
import Synchronization

/// `isobar forecast`: reads `outlook` lines on stdin and writes each cell's `forecast` on stdout,
/// fetching Open-Meteo (or `urlTemplate`) at most once per cell per refresh (`ForecastEngine`).
/// Requests are made one at a time, in input order, so an `outlook` for a cell being fetched
/// finds the answer in the cache: many clients asking for one cell cost one request. Returns 0
/// at end of input.
public func runForecast(_ engine: ForecastEngine, timeout: Double, maxBodyBytes: Int, maxLineLength: Int, logger: Logger) -> Int32 {
    LineOutput.ignoreSIGPIPE()
    let client = FeedClient(timeout: timeout, maxBodyBytes: maxBodyBytes, maxRedirects: 3)
    logger.info("forecasts from \(engine.urlTemplate), each cell refreshed after \(engine.refresh) s")
    LineInput.runStage(stage: ForecastEngine.stage, maxLineLength: maxLineLength) { line, out in
        guard let cell = engine.handle(line: line, now: UnixClock.now(), into: &out) else { return }
        let url = engine.url(for: cell)
        let response = ForecastFetch.wait { await ForecastFetch.get(client, url, logger: logger) }
        ForecastFetch.deliver(response, for: cell, to: engine, now: UnixClock.now(), logger: logger, into: &out)
    }
    ForecastFetch.wait { await client.shutdown() }
    return 0
}

/// The forecast stage's one HTTP request at a time, made from its synchronous line loop.
public enum ForecastFetch {
    /// One GET of a cell's forecast.
    public static func get(_ client: FeedClient, _ url: String, logger: Logger) async -> FetchResponse {
        // No validators: a cell is asked for again only once its answer expired.
        await client.fetch(.http(url), validators: ConditionalValidators(), logger: logger)
    }

    /// Hands the answer to `engine`, which caches it and writes the cell's `forecast`.
    public static func deliver(_ response: FetchResponse, for cell: ForecastCell, to engine: ForecastEngine, now: Double,
                               logger: Logger, into out: inout JSONWriter) {
        switch response {
        case .body(let bytes, _):
            engine.fetched(cell, body: bytes, failure: nil, now: now, into: &out)
        case .failed(let reason), .throttled(let reason, _):
            logger.warning("forecast for \(cell) failed: \(reason)")
            engine.fetched(cell, body: nil, failure: reason, now: now, into: &out)
        case .notModified, .parsed:
            engine.fetched(cell, body: nil, failure: "unexpected answer", now: now, into: &out)
        }
    }

    /// Runs `work` to completion and returns its result, blocking the calling thread (the
    /// stage's main thread, never a thread of the concurrency pool).
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        // The task stored a value before signalling.
        return result.withLock { $0 }!
    }
}
