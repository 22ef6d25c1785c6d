import IsobarCore

/// Everything `isobar fetch` can be told: where the two feeds are, how often to poll them, and the
/// limits that keep a misbehaving server from stalling or flooding the pipeline.
public struct FetchOptions: Sendable, Equatable {
    /// The public onX endpoint for today's observations (the product's default source).
    public static let defaultToday =
        "https://gist.githubusercontent.com/rcedwards/4ff0a1510551295be0ec0369186d83ed/raw/fc7b5308546c0e1085d8748134138cef4281ac11/today.json"
    /// The public onX endpoint for tomorrow's forecast.
    public static let defaultTomorrow =
        "https://gist.githubusercontent.com/rcedwards/6421fa7f0f3789801935d6d37df55922/raw/e673021836819aa20018853643c8769fd4d129fd/tomorrow.json"

    /// Source of today's feed: an http(s) URL, a file path, or a file:// URL.
    public var today: String
    /// Source of tomorrow's feed, in the same forms as `today`.
    public var tomorrow: String
    /// More sources joining today's (or tomorrow's) snapshot, each optionally `FORMAT+SOURCE`
    /// (see `FeedSpec`); with any, every station id is prefixed with its source's label (`FeedMerge`).
    public var moreToday: [String] = []
    public var moreTomorrow: [String] = []
    /// Seconds between polls of a healthy source.
    public var interval: Double
    /// Fetch each source once, write what it got, and exit (for pipes and tests).
    public var once: Bool
    /// Seconds one request may take from connect to the last body byte.
    public var timeout: Double
    /// Largest body accepted; reading stops and the fetch fails past it.
    public var maxBodyBytes: Int
    /// Redirects followed per request (only to http or https).
    public var maxRedirects: Int
    /// First retry ceiling after a failure, in seconds; it doubles per consecutive failure.
    public var backoffBase: Double
    /// Largest retry ceiling, in seconds.
    public var backoffCap: Double
    /// The format of both sources' bodies (`auto` recognises each body and logs what it chose).
    public var format: FeedFormat
    /// What an OpenWeather source's request asked for with `units=`.
    public var openWeatherUnits: OpenWeatherFeed.Units
    /// Seconds after which an unchanged snapshot is announced again with its new `fetchedAt`, so a
    /// wrong snapshot (forged, or fetched by a host whose clock ran ahead) cannot pin maps.
    public var republishInterval: Double = 300
    /// Most stations whose latest observation an NWS stations list source asks for each round
    /// (`--nws-stations`; `NWSStationFanOut`).
    public var nwsMaxStations = 50
    /// Most one republication per this many seconds, however many bare resyncs arrive.
    public var resyncInterval: Double = ResyncInterval.defaultSeconds

    public init(today: String = FetchOptions.defaultToday, tomorrow: String = FetchOptions.defaultTomorrow,
                interval: Double = 60, once: Bool = false, timeout: Double = 10, maxBodyBytes: Int = Limits.feedBodyBytes,
                maxRedirects: Int = 3, backoffBase: Double = 1, backoffCap: Double = 300, format: FeedFormat = .onx,
                openWeatherUnits: OpenWeatherFeed.Units = .standard) {
        self.today = today
        self.tomorrow = tomorrow
        self.interval = interval
        self.once = once
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.format = format
        self.openWeatherUnits = openWeatherUnits
    }

    /// Checks the numbers and both sources, so a bad flag is reported in one line before anything runs.
    public func validate() throws(FetchOptionsError) {
        guard interval.isFinite, interval > 0 else { throw FetchOptionsError("--interval must be a positive number of seconds, got \(interval)") }
        guard timeout.isFinite, timeout > 0 else { throw FetchOptionsError("--timeout must be a positive number of seconds, got \(timeout)") }
        guard maxBodyBytes > 0 else { throw FetchOptionsError("--max-body-bytes must be positive, got \(maxBodyBytes)") }
        guard (0...20).contains(maxRedirects) else { throw FetchOptionsError("--max-redirects must be between 0 and 20, got \(maxRedirects)") }
        guard republishInterval.isFinite, republishInterval > 0 else {
            throw FetchOptionsError("--republish-interval must be a positive number of seconds, got \(republishInterval)")
        }
        guard resyncInterval.isFinite, resyncInterval >= 0 else {
            throw FetchOptionsError("--resync-interval must be zero or a positive number of seconds, got \(resyncInterval)")
        }
        guard (1...500).contains(nwsMaxStations) else { throw FetchOptionsError("--nws-stations must be between 1 and 500, got \(nwsMaxStations)") }
        guard backoffBase.isFinite, backoffBase > 0 else { throw FetchOptionsError("backoff base must be positive, got \(backoffBase)") }
        guard backoffCap.isFinite, backoffCap >= backoffBase else {
            throw FetchOptionsError("backoff cap must be at least the base (\(backoffBase) s), got \(backoffCap)")
        }
        for text in [today, tomorrow] + moreToday + moreTomorrow { _ = try FeedSource(FeedSpec(parsing: text).location) }
    }
}

/// A fetch option that cannot work; `description` says which flag and what to use instead.
public struct FetchOptionsError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
