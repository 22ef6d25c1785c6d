import IsobarCore
import IsobarNet
/// Everything `isobar sample-feed` can be told.
public struct SampleFeedOptions: Sendable, Equatable {
    /// Address to bind; loopback by default so a demo server is never reachable from the network.
    public var host: String
    /// Port to bind; 0 picks a free one (the bound port is logged and printed).
    public var port: Int
    /// Directory holding `today.json` and `tomorrow.json`.
    public var fixturesDirectory: String
    /// Whether values drift over time; off serves the fixture bytes as they are.
    public var drift: Bool
    /// Seconds per drift epoch.
    public var period: Double
    /// Seed of the drift and of `--error-rate` draws.
    public var seed: UInt64
    /// Unix seconds at which epoch 0 begins; nil means when the server starts.
    public var origin: Double?
    /// A fault applied to every feed request that names none in its query.
    public var fault: SampleFeedFault?
    /// Seconds to wait before every feed response.
    public var delay: Double
    /// Probability (0...1) that a feed request without an explicit fault gets a random transient one.
    public var errorRate: Double
    /// Seconds over which `slow` spreads the body.
    public var slowSeconds: Double
    /// Size of the `huge` body.
    public var hugeBytes: Int
    /// What `/today.json` and `/tomorrow.json` serve: the drifting onX fixtures, or the fixture of
    /// another format (`feeds/` in the fixtures directory, served as it is). `/openweather.json`,
    /// `/darksky.json` and `/airvisual.json` are served whatever this is.
    public var format: FeedFormat

    public init(host: String = "127.0.0.1", port: Int = 8080, fixturesDirectory: String = "Fixtures", drift: Bool = true,
                period: Double = 30, seed: UInt64 = 1, origin: Double? = nil, fault: SampleFeedFault? = nil,
                delay: Double = 0, errorRate: Double = 0, slowSeconds: Double = 20, hugeBytes: Int = 16 << 20,
                format: FeedFormat = .onx) {
        self.host = host
        self.port = port
        self.fixturesDirectory = fixturesDirectory
        self.drift = drift
        self.period = period
        self.seed = seed
        self.origin = origin
        self.fault = fault
        self.delay = delay
        self.errorRate = errorRate
        self.slowSeconds = slowSeconds
        self.hugeBytes = hugeBytes
        self.format = format
    }

    public func validate() throws(SampleFeedError) {
        guard (0...65535).contains(port) else { throw SampleFeedError("--port must be 0...65535 (0 picks a free port), got \(port)") }
        guard period.isFinite, period > 0 else { throw SampleFeedError("--period must be a positive number of seconds, got \(period)") }
        guard delay.isFinite, (0...3600).contains(delay) else { throw SampleFeedError("--delay must be 0...3600 seconds, got \(delay)") }
        guard errorRate.isFinite, (0...1).contains(errorRate) else { throw SampleFeedError("--error-rate must be a probability 0...1, got \(errorRate)") }
        guard slowSeconds.isFinite, (0...3600).contains(slowSeconds) else { throw SampleFeedError("slow duration must be 0...3600 seconds, got \(slowSeconds)") }
        guard hugeBytes > 0 else { throw SampleFeedError("huge body size must be positive, got \(hugeBytes)") }
        guard format != .auto else { throw SampleFeedError("--format must be onx, openweather, darksky, airvisual, metar, openmeteo or nws, not auto") }
    }
}
