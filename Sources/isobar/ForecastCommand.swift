import ArgumentParser
import IsobarCore
import IsobarNet
import Logging

struct ForecastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecast",
        abstract: "Answer the filter's outlook requests with Open-Meteo forecasts, one request per 0.1° cell per refresh.",
        discussion: """
        Input (stdin, NDJSON): {"type":"outlook","latitude":48.7,"longitude":21.3}
        Output (stdout, NDJSON):
          {"type":"forecast","latitude":48.7,"longitude":21.3,"state":"ok","fetchedAt":…,"expiresAt":…,"timeZone":"Europe/Bratislava","hourly":[…],"daily":[…]}
          {"type":"forecast","latitude":48.7,"longitude":21.3,"state":"failed","reason":"HTTP 500 Internal Server Error","fetchedAt":…,"expiresAt":…}
        Other message types pass through unchanged. A cell's answer is cached until it expires (--refresh
        seconds, --retry after a failure): an outlook for it meanwhile is answered from the cache. Open-Meteo's
        free API is for non-commercial use, 10,000 calls a day; run the filter with --forecasts so it asks.
        On the bus: isobar plug --sub outlook -- isobar forecast
        """)

    @Option(help: "Forecast URL; {latitude} and {longitude} are replaced by the cell's (default: Open-Meteo's /v1/forecast with the hourly and daily variables the detail shows).")
    var url = ForecastEngine.defaultURL
    @Option(help: "Seconds a forecast is kept before the cell is fetched again (Open-Meteo's models update hourly at best).")
    var refresh: Double = 3600
    @Option(help: "Seconds a failed fetch is kept before the cell is fetched again.")
    var retry: Double = 300
    @Option(help: "Request timeout in seconds.")
    var timeout: Double = 10
    @Option(help: "Largest accepted body in bytes.")
    var maxBodyBytes = 4 << 20
    @Option(help: "Longest accepted input line in bytes.")
    var maxLineBytes = Limits.lineBytes

    func validate() throws {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw ValidationError("--url must be an http(s) URL, got \(url)") }
        guard refresh.isFinite, refresh > 0, retry.isFinite, retry > 0 else { throw ValidationError("--refresh and --retry must be positive seconds") }
        guard timeout.isFinite, timeout > 0, maxBodyBytes > 0 else { throw ValidationError("--timeout and --max-body-bytes must be positive") }
    }

    func run() async throws {
        Logs.bootstrap()
        let engine = ForecastEngine(urlTemplate: url, refresh: refresh, retry: retry)
        let status = await runForecast(engine, timeout: timeout, maxBodyBytes: maxBodyBytes, maxLineLength: maxLineBytes, logger: Logger(label: "forecast"))
        if status != 0 { throw ExitCode(status) }
    }
}
