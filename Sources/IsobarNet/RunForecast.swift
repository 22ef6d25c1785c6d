#if canImport(Glibc)
import Glibc
#endif
import IsobarCore
import IsobarStdio
import Logging
import NIOPosix

/// `isobar forecast`: reads `outlook` lines on stdin and writes each cell's `forecast` on stdout,
/// fetching Open-Meteo (or `urlTemplate`) at most once per cell per refresh (`ForecastEngine`).
/// Requests are made one at a time, in input order, so an `outlook` for a cell being fetched
/// finds the answer in the cache: many clients asking for one cell cost one request. Returns 0
/// at end of input.
///
/// One async loop: each read of stdin is awaited on NIO's blocking-I/O pool (`read(2)` blocks,
/// and must not hold a thread of the concurrency pool), each fetch awaited in turn.
public func runForecast(_ engine: ForecastEngine, timeout: Double, maxBodyBytes: Int, maxLineLength: Int, logger: Logger) async -> Int32 {
    LineOutput.ignoreSIGPIPE()
    let client = FeedClient(timeout: timeout, maxBodyBytes: maxBodyBytes, maxRedirects: 3)
    logger.info("forecasts from \(engine.urlTemplate), each cell refreshed after \(engine.refresh) s")
    var splitter = LineSplitter(maxLineLength: maxLineLength)
    var out = JSONWriter(capacity: 64 * 1024)
    var reading = true
    while reading {
        let chunk = (try? await NIOThreadPool.singleton.runIfActive { ForecastFetch.readChunk(fd: 0) }) ?? []
        // The lines of this chunk, copied out of the splitter's callback so each can await its fetch.
        var events: [ForecastFetch.Input] = []
        let collect: (LineEvent) -> Void = { event in
            switch event {
            case .line(let bytes): events.append(.line(Array(bytes)))
            case .tooLong(let length, let excerpt): events.append(.tooLong(length, excerpt))
            }
        }
        if chunk.isEmpty {
            reading = false
            splitter.finish(collect)
        } else {
            chunk.withUnsafeBytes { splitter.append($0, collect) }
        }
        for event in events {
            switch event {
            case .line(let line):
                let cell = line.withUnsafeBytes { engine.handle(line: $0, now: UnixClock.now(), into: &out) }
                guard let cell else { continue }
                let response = await ForecastFetch.get(client, engine.url(for: cell), logger: logger)
                ForecastFetch.deliver(response, for: cell, to: engine, now: UnixClock.now(), logger: logger, into: &out)
            case .tooLong(let length, let excerpt):
                ErrorMessage(stage: ForecastEngine.stage, message: "line of \(length) bytes exceeds the \(maxLineLength)-byte limit; skipped",
                             excerpt: excerpt, code: .lineTooLong).write(to: &out)
            }
        }
        LineOutput.standardOutput.write(&out)
        LineOutput.standardOutput.flush()
    }
    await client.shutdown()
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

    /// One line of input, or a line over the limit (its length and excerpt).
    enum Input {
        case line([UInt8])
        case tooLong(Int, String)
    }

    /// One `read(2)` of up to 64 KiB from `fd` (retried on EINTR); empty at end of input or on an error.
    static func readChunk(fd: Int32) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            return n > 0 ? Array(chunk[..<n]) : []
        }
    }
}
