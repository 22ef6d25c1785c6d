import IsobarCore
import Logging

/// Polls the today and tomorrow feeds and publishes complete snapshots, warnings, per-record errors
/// and `status` lines; keeps the last good snapshot of each day for resync requests.
///
/// An actor so that the poll loops, a `--once` round and resync requests arriving from stdin all
/// see one consistent state. The policy (schedule, conditional headers, change detection) lives in
/// the pure `FeedPoller`; this type only does the I/O and the writing.
///
/// What it publishes:
/// - a changed snapshot: warnings and errors from parsing, every `station` line, the `snapshot`
///   end marker, then `status` ok. A bad body publishes no station at all, only `status` failed.
/// - an unchanged feed (304 or the same snapshot id): a debug log line; a `status` unchanged line
///   only when it ends a run of failures, so a healthy feed costs no bus traffic between changes.
/// - an unchanged feed whose last publication is `republishInterval` old: the end marker again,
///   with the new `fetchedAt` (PROTOCOL.md, "Implausible snapshots").
/// - a resync: the latest snapshot of each day (same id, its original `fetchedAt`, its age) and the
///   latest status of each day.
public actor FeedFetcher: Stage {
    /// The fetcher in the table of message types (``Stage/subscriptions``: resyncs).
    public static let party = Party.fetch

    /// The last snapshot published for one day.
    public struct Latest: Sendable, Equatable {
        public var id: String
        public var stations: [Station]
        public var fetchedAt: Double
    }

    struct Feed {
        let day: Day
        /// One or more sources, each with its format; several are joined by `FeedMerge`.
        let sources: [(location: FeedSource, format: FeedFormat)]
        /// What `status` lines name: the sources as given, joined by " + ".
        var url: String { sources.map(\.location.description).joined(separator: " + ") }
        /// Each source's format as last resolved (`auto` until its first body): `status`'s `formats`.
        var formats: [FeedFormat]
        /// The formats `status` names: nothing while any is still `auto` (not yet known).
        var formatNames: [String] { formats.contains(.auto) ? [] : formats.map(\.rawValue) }
        var poller: FeedPoller
        var latest: Latest?
        var status: StatusMessage?
    }

    private var feeds: [Day: Feed] = [:]
    private var outputClosed = false
    private let client: FeedClient
    private let output: any FetchOutput
    private let clock: @Sendable () -> Double
    private let jitter: Jitter
    private let logger: Logger
    /// `--once`: there is no next attempt, so failures report `retryIn` 0 and log no retry time.
    private let once: Bool
    /// Seconds after which an unchanged snapshot's end marker is published again (`--republish-interval`).
    private let republishInterval: Double
    /// How bodies are read (`--format`, `--openweather-units`).
    private let formatOptions: FeedFormat.Options
    /// `--nws-stations`: most observations asked per round for an NWS stations list.
    private let nwsMaxStations: Int

    public init(options: FetchOptions, client: FeedClient, output: any FetchOutput, logger: Logger,
                clock: @escaping @Sendable () -> Double = UnixClock.now, jitter: Jitter = .system) throws(FetchOptionsError) {
        try options.validate()
        let backoff = Backoff(initial: .seconds(options.backoffBase), maximum: .seconds(options.backoffCap))
        for (day, texts) in [(Day.today, [options.today] + options.moreToday), (Day.tomorrow, [options.tomorrow] + options.moreTomorrow)] {
            var sources: [(location: FeedSource, format: FeedFormat)] = []
            for text in texts {
                let spec = FeedSpec(parsing: text)
                sources.append((try FeedSource(spec.location), spec.format ?? options.format))
            }
            feeds[day] = Feed(day: day, sources: sources, formats: sources.map(\.format), poller: FeedPoller(interval: options.interval, backoff: backoff))
        }
        self.client = client
        self.output = output
        self.clock = clock
        self.jitter = jitter
        self.logger = logger
        self.once = options.once
        self.republishInterval = options.republishInterval
        self.formatOptions = FeedFormat.Options(openWeatherUnits: options.openWeatherUnits)
        self.nwsMaxStations = options.nwsMaxStations
    }

    /// The last snapshot published for `day`, if any.
    public func latest(_ day: Day) -> Latest? { feeds[day]?.latest }

    /// The polling state of `day`'s source.
    public func state(_ day: Day) -> FeedPoller.State? { feeds[day]?.poller.state }

    /// Seconds until `day`'s source is due again.
    public func secondsUntilDue(_ day: Day) -> Double {
        feeds[day]?.poller.secondsUntilDue(now: clock()) ?? 0
    }

    /// One attempt at `day`'s source, published at once. True when it succeeded (changed or unchanged).
    @discardableResult
    public func fetch(_ day: Day) async -> Bool {
        guard let responses = await request(day) else { return false }
        return apply(day, responses)
    }

    /// One attempt at both sources, fetched concurrently and published in day order (today first) so
    /// `--once` output is the same on every run. True when both succeeded.
    public func round() async -> Bool {
        async let today = request(.today)
        async let tomorrow = request(.tomorrow)
        guard let todayResponses = await today, let tomorrowResponses = await tomorrow else { return false }
        let todayOK = apply(.today, todayResponses)
        let tomorrowOK = apply(.tomorrow, tomorrowResponses)
        return todayOK && tomorrowOK
    }

    /// Polls both sources until the task is cancelled or the output's reader has gone away: each on
    /// its own schedule (the interval when healthy, the jittered backoff after failures).
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for day in Day.allCases {
                group.addTask { await self.poll(day) }
            }
        }
    }

    private func poll(_ day: Day) async {
        while !Task.isCancelled && !outputClosed {
            await fetch(day)
            if outputClosed { return }
            let wait = secondsUntilDue(day)
            do { try await Task.sleep(nanoseconds: UInt64(max(0, min(wait, 86_400)) * 1e9)) } catch { return }
        }
    }

    /// Republishes the latest complete snapshot of each day (a resync request without a client) and
    /// each day's latest status, so a consumer that started late or lost messages catches up.
    public func resync(reason: String) {
        let now = clock()
        var writer = JSONWriter(capacity: 64 * 1024)
        var republished: [String] = []
        for day in Day.allCases {
            guard let feed = feeds[day] else { continue }
            if let latest = feed.latest {
                OnXFeed.writeSnapshot(day: day, stations: latest.stations, source: .feed, fetchedAt: latest.fetchedAt,
                                      ageSeconds: max(0, now - latest.fetchedAt), id: latest.id, into: &writer,
                                      flush: { self.output.write(&$0) })
                republished.append(latest.id)
            }
            feed.status?.write(to: &writer)
        }
        output.write(&writer)
        output.flush()
        if republished.isEmpty {
            logger.info("resync requested; no snapshot fetched yet, the next successful fetch will publish", metadata: ["reason": "\(reason)"])
        } else {
            logger.info("resync requested; republished \(republished.joined(separator: ", "))", metadata: ["reason": "\(reason)"])
        }
    }

    /// One attempt at every source of `day`. A single source is asked conditionally (ETag,
    /// Last-Modified); several are fetched whole, one after another, since the snapshot they make
    /// together changes when any one does (an unchanged result is still recognised by its id).
    private func request(_ day: Day) async -> [FetchResponse]? {
        guard let sources = feeds[day]?.sources, let validators = feeds[day]?.poller.begin() else { return nil }
        // onX bodies are read as they arrive (a million records are never held whole).
        if sources.count == 1 {
            let response = await client.fetch(sources[0].location, validators: validators, logger: logger, streamingOnX: sources[0].format == .onx)
            return [await expandedIfStationList(response, from: sources[0])]
        }
        var responses: [FetchResponse] = []
        for source in sources {
            let response = await client.fetch(source.location, validators: ConditionalValidators(), logger: logger, streamingOnX: source.format == .onx)
            responses.append(await expandedIfStationList(response, from: source))
        }
        return responses
    }

    /// An NWS stations list fetched over http(s) (`--format nws` or `auto`) becomes the feed of
    /// its stations' latest observations (`NWSStationFanOut`); any other response stays as it is.
    private func expandedIfStationList(_ response: FetchResponse, from source: (location: FeedSource, format: FeedFormat)) async -> FetchResponse {
        guard source.format == .nws || source.format == .auto, case .http(let url) = source.location, case .body(let bytes, _) = response,
              let body = try? GzipFile.inflatedIfGzip(bytes, limit: client.maxBodyBytes), NWSStationList.isList(body) else { return response }
        return await NWSStationFanOut(client: client, maxStations: nwsMaxStations, logger: logger).expand(url: url, firstPage: body)
    }

    /// What the responses of `feed`'s sources make: one parsed feed, or why the attempt failed
    /// (noting each source's format as `auto` resolved it).
    private func parse(_ feed: inout Feed, _ responses: [FetchResponse]) -> Result<(ParsedFeed, ConditionalValidators), MessageError>? {
        var parts: [(format: FeedFormat, feed: ParsedFeed)] = []
        var validators = ConditionalValidators()
        for (index, (response, source)) in zip(responses, feed.sources).enumerated() {
            let name = feed.sources.count == 1 ? "" : "source \(index + 1) (\(source.location)): "
            switch response {
            case .notModified:
                if feed.sources.count == 1 { return nil }
                return .failure(MessageError(name + "answered not modified to an unconditional request"))
            case .failed(let reason), .throttled(let reason, _):
                return .failure(MessageError(name + reason))
            case .parsed(let parsed, let given):
                // Read on arrival: an onX body streamed, or an NWS stations list's observations (the
                // one way a `nws` or `auto` source is parsed before this point).
                let format: FeedFormat = source.format == .onx ? .onx : .nws
                parts.append((format, parsed))
                feed.formats[index] = format
                validators = given
            case .body(let bytes, let given):
                do {
                    // A gzip file served as it is (the METAR cache) is inflated first, within the body limit.
                    let body = try GzipFile.inflatedIfGzip(bytes, limit: client.maxBodyBytes)
                    let (parsed, chosen) = try source.format.parse(body, day: feed.day, options: formatOptions, stage: "fetch")
                    if source.format == .auto {
                        logger.info("--format auto: \(feed.day.rawValue)'s body is \(chosen.rawValue)", metadata: ["url": "\(source.location)"])
                    }
                    parts.append((chosen, parsed))
                    feed.formats[index] = chosen
                    validators = given
                } catch {
                    return .failure(MessageError(name + error.message))
                }
            }
        }
        guard parts.count > 1 else { return parts.first.map { .success(($0.feed, validators)) } }
        let labels = FeedMerge.labels(parts.map(\.format))
        return .success((FeedMerge.merge(zip(labels, parts).map { ($0, $1.feed) }), ConditionalValidators()))
    }

    /// Parses what came back, asks the policy what it means, and writes the result.
    private func apply(_ day: Day, _ responses: [FetchResponse]) -> Bool {
        guard var feed = feeds[day] else { return false }
        defer { feeds[day] = feed }
        let now = clock()
        var parsed: ParsedFeed?
        var snapshotID = ""
        let outcome: FeedPoller.Outcome
        switch parse(&feed, responses) {
        case nil:
            outcome = .notModified
        case .failure(let error):
            // The longest wait any source asked for (429/503 with Retry-After), if one did.
            let retryAfter = responses.compactMap { response -> Double? in
                if case .throttled(_, let seconds) = response { return seconds }
                return nil
            }.max()
            outcome = retryAfter.map { .throttled(reason: error.description, retryAfter: $0) } ?? .failed(reason: error.description)
        case .success(let (result, validators)):
            parsed = result
            snapshotID = OnXFeed.snapshotID(day: day, stations: result.stations)
            outcome = .content(snapshotID: snapshotID, validators: validators)
        }
        let decision = feed.poller.complete(outcome, now: now, jitter: jitter.next())
        var writer = JSONWriter(capacity: 64 * 1024)
        let url = feed.url
        var log = logger
        log[metadataKey: "day"] = "\(day.rawValue)"
        switch decision {
        case .publish:
            guard let parsed else { return false }
            for warning in parsed.warnings { warning.write(to: &writer) }
            for error in parsed.errors { error.write(to: &writer) }
            // Newest data wins downstream (SnapshotRank): each new snapshot's fetchedAt is after the
            // last one's even if the wall clock stepped back, or consumers would keep the old data.
            let fetchedAt = max(now, (feed.latest?.fetchedAt ?? -.infinity).nextUp)
            // In pieces: the actor runs this without suspending, so no other write comes between them.
            OnXFeed.writeSnapshot(day: day, stations: parsed.stations, source: .feed, fetchedAt: fetchedAt, id: snapshotID, into: &writer,
                                  flush: { self.output.write(&$0) })
            feed.latest = Latest(id: snapshotID, stations: parsed.stations, fetchedAt: fetchedAt)
            let status = StatusMessage(day: day, state: .ok, url: url, formats: feed.formatNames)
            status.write(to: &writer)
            feed.status = status
            log.info("published \(snapshotID): \(parsed.stations.count) stations, \(parsed.warnings.count) warnings, \(parsed.errors.count) rejected records")
        case .unchanged(let recovered, _):
            let status = StatusMessage(day: day, state: .unchanged, url: url, formats: feed.formatNames)
            feed.status = status
            if var latest = feed.latest, now - latest.fetchedAt >= republishInterval {
                // The same content, fetched again: its end marker alone with the new fetchedAt, so
                // a wrong snapshot some consumer holds (forged, or from a clock ahead) loses to it
                // within this interval; a consumer that lacks the stations asks for a resync.
                latest.fetchedAt = max(now, latest.fetchedAt.nextUp)
                feed.latest = latest
                SnapshotEnd(day: day, snapshot: latest.id, count: latest.stations.count, source: .feed, fetchedAt: latest.fetchedAt)
                    .write(to: &writer)
                log.info("unchanged since \(latest.id); republished its end marker with the new fetch time")
            }
            if recovered {
                status.write(to: &writer)
                log.info("feed is back; content unchanged since \(feed.latest?.id ?? "the last snapshot")")
            } else {
                log.debug("unchanged")
            }
        case .failed(let reason, let attempt, let retryIn):
            let status = StatusMessage(day: day, state: .failed, url: url, formats: feed.formatNames, reason: reason, attempt: attempt, retryIn: once ? 0 : retryIn)
            status.write(to: &writer)
            feed.status = status
            if once {
                log.warning("fetch failed: \(reason)")
            } else {
                log.warning("fetch failed (attempt \(attempt)): \(reason); retrying in \(FeedClient.seconds((retryIn * 10).rounded() / 10)) s")
            }
        }
        output.write(&writer)
        if !output.flush() && !outputClosed {
            outputClosed = true
            logger.notice("stdout was closed by its reader; stopping")
        }
        if case .failed = decision { return false }
        return true
    }
}
