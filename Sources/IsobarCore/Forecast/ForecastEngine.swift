/// The forecast stage's logic (`isobar forecast`): answers each `outlook` with the cell's
/// `forecast`, from its cache while the last answer holds, otherwise by asking the caller to fetch
/// the cell's Open-Meteo forecast once and reading the answer. Pure: the caller does the HTTP and
/// supplies the clock, so one request per cell per refresh is a property of this type, whatever
/// the number of clients, filter shards or repeated `outlook`s asking.
///
/// Input: `outlook` (others pass through unchanged). Output: `forecast`, `error`.
public final class ForecastEngine: Stage {
    /// The forecast stage in the table of message types: it subscribes to `outlook`
    /// (``Stage/subscriptions``).
    public static let party = Party.forecast
    /// Open-Meteo's forecast endpoint with what the filter's detail needs: the hourly and daily
    /// variables `OpenMeteoFeed` reads, the point's own zone (`timezone=auto`), Unix times.
    public static let defaultURL = "https://api.open-meteo.com/v1/forecast?latitude={latitude}&longitude={longitude}"
        + "&current=temperature_2m,weather_code&hourly=temperature_2m,precipitation_probability,weather_code,wind_speed_10m,wind_direction_10m"
        + "&daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max,sunrise,sunset,wind_speed_10m_max,wind_direction_10m_dominant,uv_index_max"
        + "&timezone=auto&timeformat=unixtime&forecast_days=8"
    /// Most cells held at once; past it expired answers go first, then the oldest.
    public static let maxCells = 100_000

    /// `{latitude}` and `{longitude}` are replaced by the cell's.
    public let urlTemplate: String
    /// Seconds a forecast holds (Open-Meteo's models update hourly at best).
    public let refresh: Double
    /// Seconds a failure holds before the cell is asked for again.
    public let retry: Double
    private var cache: [ForecastCell: ForecastMessage] = [:]
    /// HTTP fetches asked for so far.
    public private(set) var fetches = 0

    public init(urlTemplate: String = ForecastEngine.defaultURL, refresh: Double = 3600, retry: Double = 300) {
        self.urlTemplate = urlTemplate
        self.refresh = refresh
        self.retry = retry
    }

    /// The URL that fetches `cell`.
    public func url(for cell: ForecastCell) -> String {
        urlTemplate.replacing("{latitude}", with: "\(cell.latitude)")
            .replacing("{longitude}", with: "\(cell.longitude)")
    }

    /// Handles one input line. Returns the cell to fetch (the caller then calls `fetched`), or nil
    /// when the line was answered from the cache, passed through, or was an error.
    public func handle(line: UnsafeRawBufferPointer, now: Double, into out: inout JSONWriter) -> ForecastCell? {
        let object: JSONObject
        do {
            object = try JSONObject(parsing: line)
        } catch {
            ErrorMessage(stage: Self.stage, message: "not a JSON object: \(error)", line: line, code: .notJSON).write(to: &out)
            return nil
        }
        do {
            let type = try object.requireName("type", maxLength: .max)
            guard type == "outlook" else {
                out.raw(object.rawBytes)
                out.newline()
                return nil
            }
            let request = try OutlookRequest(from: object)
            if let held = cache[request.cell], now < held.expiresAt {
                held.write(to: &out)
                return nil
            }
            fetches += 1
            return request.cell
        } catch {
            ErrorMessage(stage: Self.stage, error, line: line, client: nil).write(to: &out)
            return nil
        }
    }

    /// Reads the answer to the fetch of `cell` (a body, or why there is none), caches it and
    /// writes the `forecast`. A body that is not a forecast, or whose forecast is rejected, is a
    /// failure like a failed request: held for `retry` seconds, never a crash.
    public func fetched(_ cell: ForecastCell, body: [UInt8]?, failure: String?, now: Double, into out: inout JSONWriter) {
        let message: ForecastMessage
        switch Self.read(body, failure: failure) {
        case .success(let (zone, hourly, daily)):
            message = ForecastMessage(cell: cell, state: .ok, fetchedAt: now, expiresAt: now + refresh, timeZone: zone, hourly: hourly, daily: daily)
        case .failure(let reason):
            message = ForecastMessage(cell: cell, state: .failed, reason: reason.message, fetchedAt: now, expiresAt: now + retry)
        }
        store(message, now: now)
        message.write(to: &out)
    }

    private func store(_ message: ForecastMessage, now: Double) {
        if cache[message.cell] == nil, cache.count >= Self.maxCells {
            cache = cache.filter { now < $0.value.expiresAt }
            if cache.count >= Self.maxCells, let oldest = cache.min(by: { $0.value.fetchedAt < $1.value.fetchedAt }) {
                cache[oldest.key] = nil
            }
        }
        cache[message.cell] = message
    }

    typealias Points = (zone: String?, hourly: [ForecastPoint], daily: [ForecastPoint])

    /// The zone and points of an Open-Meteo answer for one point.
    static func read(_ body: [UInt8]?, failure: String?) -> Result<Points, MessageError> {
        guard let body else { return .failure(MessageError(failure ?? "no answer")) }
        do throws(MessageError) {
            let feed = try OpenMeteoFeed.parse(body, stage: stage)
            guard let details = feed.stations.first?.details, !(details.hourly.isEmpty && details.daily.isEmpty) else {
                return .failure(MessageError(feed.errors.first.map { "forecast rejected: \($0.message)" } ?? "the answer has no hourly or daily forecast"))
            }
            let answer = try FeedBody(body, expected: OpenMeteoFeed.expected).elements.first?.object
            let zone = try answer?.optionalString("timezone").flatMap { StationDetails.isZoneName($0) ? $0 : nil }
            return .success((zone, details.hourly, details.daily))
        } catch {
            return .failure(error)
        }
    }
}
