import IsobarCore
import ArgumentParser
import IsobarNet
import Logging

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Poll the weather feeds (onX, OpenWeather, Dark Sky, AirVisual) and publish each changed snapshot as station lines plus an end marker.",
        discussion: """
        Sources are http(s) URLs, file paths or file:// URLs (defaults: the public onX endpoints). Each body is
        one response or a JSON array of responses; --format says which API wrote it (Dark Sky: point --today and
        --tomorrow at the same forecast, today is read from "currently", tomorrow from daily[1]).
        Conditional GET (ETag / Last-Modified), a request timeout, a body-size limit, at most 3 redirects
        (http/https only) and capped exponential backoff with jitter after failures.

        Input (stdin, NDJSON): {"type":"resync","reason":"filter started"}  -> republish the latest snapshots
        (a resync with a "client" is for the filter and ignored; other lines are ignored: fetch is a source).
        Output (stdout, NDJSON):
          {"type":"station","day":"today","snapshot":"today-5f1c…","seq":0,"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.90468887898,"windDirection":270,"precipitation":0}
          {"type":"snapshot","day":"today","snapshot":"today-5f1c…","count":181,"source":"feed","fetchedAt":1795000000,"ageSeconds":0}
          {"type":"warning","stage":"fetch","id":"KXYZ","message":"chance_of_precipitation 105 is outside 0...100; clamped to 100"}
          {"type":"status","day":"today","state":"failed","url":"…","reason":"HTTP 500","attempt":2,"retryIn":3.1}
          {"type":"error","stage":"fetch","message":"record 7 rejected: …","excerpt":"…","code":"out-of-range"}
        """)

    @Option(help: "Today's feed: URL, file path or file:// URL, optionally FORMAT+SOURCE (darksky+URL). Repeat it to join several sources in one snapshot (ids then prefixed with the source's format).")
    var today: [String] = []
    @Option(help: "Tomorrow's feed, in the same forms as --today (repeatable).")
    var tomorrow: [String] = []
    @Option(help: "Seconds between polls.")
    var interval: Double = 60
    @Flag(help: "Fetch once, write the snapshots and exit (status 1 if a source failed).")
    var once = false
    @Option(help: "Request timeout in seconds.")
    var timeout: Double = 10
    @Option(help: "Largest accepted body in bytes.")
    var maxBodyBytes = Limits.feedBodyBytes
    @Option(help: "Redirects followed per request.")
    var maxRedirects = 3
    @Option(help: "The feeds' format: onx, openweather, darksky, airvisual, metar, openmeteo, nws, or auto (recognise each body and log which it is).")
    var format: FeedFormat = .onx
    @Option(name: .customLong("openweather-units"), help: "What the OpenWeather request asked for with units=: standard (kelvin, m/s; the API's default), metric (°C, m/s) or imperial (°F, mph).")
    var openWeatherUnits: OpenWeatherFeed.Units = .standard
    @Option(name: .customLong("nws-stations"), help: "With an api.weather.gov stations list as a --format nws source (https://api.weather.gov/stations?state=CO): most stations whose observations/latest is asked each round, one request at a time (1-500).")
    var nwsStations = 50
    @Option(help: "Longest wait in seconds before retrying a failed feed (the backoff doubles from 1 s up to it, with full jitter).")
    var backoffCap: Double = 300
    @Option(help: "Announce an unchanged snapshot again (its end marker, with the new fetch time) when its last publication is this many seconds old.")
    var republishInterval: Double = 300
    @Option(help: "Republish on a bare resync at most once per this many seconds (requests in between are served together at its end).")
    var resyncInterval = ResyncInterval.defaultSeconds

    func run() async throws {
        Logs.bootstrap()
        var options = FetchOptions(today: today.first ?? FetchOptions.defaultToday, tomorrow: tomorrow.first ?? FetchOptions.defaultTomorrow, interval: interval, once: once, timeout: timeout,
                                   maxBodyBytes: maxBodyBytes, maxRedirects: maxRedirects, backoffCap: backoffCap,
                                   format: format, openWeatherUnits: openWeatherUnits)
        options.moreToday = Array(today.dropFirst())
        options.republishInterval = republishInterval
        options.resyncInterval = resyncInterval
        options.nwsMaxStations = nwsStations
        options.moreTomorrow = Array(tomorrow.dropFirst())
        do {
            try options.validate()
        } catch {
            throw ValidationError(error.description)
        }
        throw ExitCode(await runFetch(options, logger: Logger(label: "fetch")))
    }
}
