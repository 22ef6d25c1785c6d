/// Settings of the filter stage.
public struct FilterOptions: Sendable {
    /// Clients silent for longer than this are forgotten (seconds).
    public var idleSeconds: Double = 600
    /// At most this many clients are held; beyond it the least recently seen is dropped.
    public var maxClients = 100_000
    /// Minimum seconds between two resync requests this filter sends.
    public var resyncInterval: Double = 1
    /// A viewport heartbeat reporting a version older than the last one sent at least this many
    /// seconds ago means that answer was lost: the client gets its whole set again. Shorter would
    /// resend answers that are merely still in flight.
    public var lostAnswerGrace: Double = 0.25
    /// A gateway's clients are forgotten when it has sent no `lease` for this long (seconds).
    public var leaseTimeout: Double = 30
    /// A lease whose digest differs from the filter's asks for a resend only when nothing went to
    /// or came from that gateway for this long: before that, the difference may be in flight.
    public var tallyGrace: Double = 0.5
    /// A client name hosted by a gateway stays that gateway's while it leased within this many
    /// seconds (3 lease intervals): a viewport for the name from another gateway is refused.
    public var claimGrace: Double = 3
    /// At most one resend request per gateway per this many seconds.
    public var resendInterval: Double = 1
    /// Most favorites one client may keep (a bound on the memory and the answer's size).
    public var maxFavorites = 200
    /// How far (km) the station answering for a favorite place or pin may be: the `weather`
    /// request's default radius, so a city list shows what tapping the city shows.
    public var favoriteRadiusKm = WeatherRequest.defaultRadiusKm
    /// A station observed (or, without `observedAt`, fetched) longer ago than this many seconds is
    /// marked `"stale":true`; nil never marks one. `isobar filter --stale-after` defaults to 60
    /// minutes, as Weather Underground expires station readings.
    public var staleAfter: Double?
    /// The clients this filter serves (``Shard``): messages of other clients are left to their
    /// shard. `.whole` serves every client.
    public var shard = Shard.whole
    /// The formatter's defaults when the formatter is chained behind this filter in its process
    /// (`isobar filter --chain-format`): client sets are then written as the formatter's
    /// `annotations` straight from the snapshot, not as `visible`. nil: `visible`.
    public var chainedFormat: ResolvedPresentation?
    /// Which complete snapshots may replace a day's (future `fetchedAt`, shrunk): the same values
    /// persist takes (`--max-future-skew`, `--min-shrink-fraction`, `--accept-shrink`).
    public var snapshotPolicy = SnapshotPolicy()
    /// Forecasts on demand: a detail without a forecast of its own asks the forecast stage for
    /// its cell's (`outlook`) and shows it when it comes (`isobar filter --forecasts`).
    public var forecasts = false
    /// The bound on the `visible` item bytes kept per snapshot, so a station sent again is copied
    /// rather than written again (``StationItemBytes``; 0 keeps none: every item written afresh).
    public var itemCacheBytes = StationItemBytes.defaultByteLimit

    public init() {}
}
