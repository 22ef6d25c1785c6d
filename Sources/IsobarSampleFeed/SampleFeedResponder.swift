import IsobarCore
import IsobarStdio
import NIOHTTP1
import IsobarNet
import Synchronization

/// Decides the sample feed's answer to one request: routing, drift epoch, conditional GET, and the
/// fault modes. Pure apart from the seeded `--error-rate` draws, so it is tested without a socket.
///
/// Routes: `GET /today.json`, `GET /tomorrow.json` (HEAD too: the onX fixtures, drifting, or with
/// `--format` another format's fixture), `GET /openweather.json`, `/darksky.json`, `/airvisual.json`,
/// `/metar.json`, `/openmeteo.json`, `/nws.json`
/// (those formats' fixtures as they are), `GET /stations` and `/stations/{id}/observations/latest`
/// (api.weather.gov's stations list and latest observations, from the NWS fixtures), `GET /health` (200 `ok`).
/// Query: `fault=NAME` (see `SampleFeedFault`), `delay=SECONDS` (before any answer).
public final class SampleFeedResponder: Sendable {
    public let options: SampleFeedOptions
    public let content: SampleFeedContent
    public let epochs: SampleFeedEpoch
    /// The seeded generator's state (SplitMix64).
    private let random: Mutex<UInt64>
    private let count = Mutex(0)

    public init(options: SampleFeedOptions, content: SampleFeedContent, origin: Double) {
        self.options = options
        self.content = content
        self.epochs = SampleFeedEpoch(origin: options.origin ?? origin, period: options.period)
        self.random = Mutex(options.seed ^ 0x5DEE_CE66_D1CE_5EED)
    }

    /// Requests answered so far (health checks included), for logs and tests.
    public var requests: Int { count.withLock { $0 } }

    public func reply(method: HTTPMethod, uri: String, headers: HTTPHeaders, now: Double) -> SampleFeedReply {
        count.withLock { $0 += 1 }
        let (path, query) = Self.split(uri)
        if path == "/health" || path == "/healthz" {
            return SampleFeedReply(.full(.ok, Self.textHeaders(), Array("ok\n".utf8)))
        }
        if path == "/stations" || path.hasPrefix("/stations/") {
            return nwsAnswer(path: path, query: query, method: method)
        }
        let day: Day
        var format = options.format
        switch path {
        case "/today.json": day = .today
        case "/tomorrow.json": day = .tomorrow
        case "/openweather.json", "/darksky.json", "/airvisual.json", "/metar.json", "/openmeteo.json", "/nws.json":
            day = .today
            format = FeedFormat(rawValue: String(path.dropFirst().dropLast(5))) ?? .onx
        default:
            return SampleFeedReply(.full(.notFound, Self.textHeaders(),
                                         Array("not found: the feeds are /today.json and /tomorrow.json (and /openweather.json, /darksky.json, /airvisual.json, /metar.json, /openmeteo.json, /nws.json); /health for checks\n".utf8)))
        }
        if format != .onx && content.formats[format] == nil {
            return SampleFeedReply(.full(.notFound, Self.textHeaders(),
                                         Array("not found: no \(format.rawValue) fixture (\(SampleFeedContent.formatFiles[format] ?? "?") under the fixtures directory)\n".utf8)))
        }
        guard method == .GET || method == .HEAD else {
            var headers = Self.textHeaders()
            headers.add(name: "Allow", value: "GET, HEAD")
            return SampleFeedReply(.full(.methodNotAllowed, headers, Array("only GET and HEAD\n".utf8)))
        }
        var delay = options.delay
        if let text = query["delay"] {
            guard let seconds = Double(text), seconds.isFinite, (0...3600).contains(seconds) else {
                return SampleFeedReply(.full(.badRequest, Self.textHeaders(), Array("delay must be 0...3600 seconds\n".utf8)))
            }
            delay = seconds
        }
        var fault = options.fault
        if let text = query["fault"] {
            do {
                fault = try SampleFeedFault(parsing: text)
            } catch {
                return SampleFeedReply(.full(.badRequest, Self.textHeaders(), Array("\(error)\n".utf8)))
            }
        } else if fault == nil, options.errorRate > 0, draw() < options.errorRate {
            let pool = SampleFeedFault.randomPool
            fault = pool[Int(draw() * Double(pool.count)) % pool.count]
        }
        if case .delay(let seconds) = fault {
            delay += seconds
            fault = nil
        }
        var reply = answer(day: day, format: format, fault: fault, uri: uri, headers: headers, now: now)
        reply.delay = delay
        return reply
    }

    private func answer(day: Day, format: FeedFormat, fault: SampleFeedFault?, uri: String, headers: HTTPHeaders, now: Double) -> SampleFeedReply {
        // Another format's fixture is served as it is: epoch 0 for ever.
        let body = format == .onx ? content.body(day, epoch: epochs.epoch(at: now)) : (content.formats[format] ?? content.body(day, epoch: 0))
        let lastModified = epochs.start(of: body.epoch)
        var feedHeaders = HTTPHeaders()
        feedHeaders.add(name: "Content-Type", value: "application/json")
        feedHeaders.add(name: "ETag", value: body.etag)
        feedHeaders.add(name: "Last-Modified", value: HTTPDate.format(lastModified))
        feedHeaders.add(name: "Cache-Control", value: "no-cache")
        switch fault {
        case nil, .delay:
            if Self.notModified(headers, etag: body.etag, lastModified: lastModified) {
                feedHeaders.remove(name: "Content-Type")
                return SampleFeedReply(.full(.notModified, feedHeaders, []))
            }
            return SampleFeedReply(.full(.ok, feedHeaders, body.bytes))
        case .status(let code):
            let status = HTTPResponseStatus(statusCode: code)
            return SampleFeedReply(.full(status, Self.textHeaders(), Array("simulated fault: HTTP \(code) \(status.reasonPhrase)\n".utf8)), fault: fault)
        case .slow(let seconds):
            return SampleFeedReply(.slow(feedHeaders, body.bytes, seconds: seconds ?? options.slowSeconds), fault: fault)
        case .truncate:
            return SampleFeedReply(.truncated(feedHeaders, body.bytes), fault: fault)
        case .drop:
            return SampleFeedReply(.drop, fault: fault)
        case .notJSON:
            var html = HTTPHeaders()
            html.add(name: "Content-Type", value: "text/html; charset=utf-8")
            let page = "<!DOCTYPE html><html><head><title>Sign in</title></head><body><p>Please sign in to continue.</p></body></html>\n"
            return SampleFeedReply(.full(.ok, html, Array(page.utf8)), fault: fault)
        case .huge:
            var streamed = HTTPHeaders()
            streamed.add(name: "Content-Type", value: "application/json")
            return SampleFeedReply(.stream(streamed, bytes: options.hugeBytes), fault: fault)
        case .badRecords:
            return SampleFeedReply(.full(.ok, Self.jsonHeaders(), Self.badRecordsBody(content.records(day, epoch: body.epoch))), fault: fault)
        case .empty:
            return SampleFeedReply(.full(.ok, Self.jsonHeaders(), Array("[]\n".utf8)), fault: fault)
        case .redirectLoop:
            var redirect = Self.textHeaders()
            redirect.add(name: "Location", value: uri)
            return SampleFeedReply(.full(.found, redirect, Array("redirecting to myself\n".utf8)), fault: fault)
        case .redirect(let location):
            var redirect = Self.textHeaders()
            redirect.add(name: "Location", value: location)
            return SampleFeedReply(.full(.found, redirect, Array("moved\n".utf8)), fault: fault)
        }
    }

    /// api.weather.gov's shape, from the fixtures: `/stations` the stations list (its first page;
    /// `cursor=` the page after the one whose `pagination.next` names it, an empty last page for
    /// any other cursor), `/stations/{id}/observations/latest` that station's Feature of
    /// `feeds/nws.json`, and 404 with a problem document for a station without one.
    private func nwsAnswer(path: String, query: [String: String], method: HTTPMethod) -> SampleFeedReply {
        guard method == .GET || method == .HEAD else {
            var headers = Self.textHeaders()
            headers.add(name: "Allow", value: "GET, HEAD")
            return SampleFeedReply(.full(.methodNotAllowed, headers, Array("only GET and HEAD\n".utf8)))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/geo+json")
        if path == "/stations" {
            guard let first = content.nwsStationPages.first else {
                return SampleFeedReply(.full(.notFound, Self.textHeaders(), Array("not found: no NWS stations list (feeds/nws-stations.json)\n".utf8)))
            }
            guard let cursor = query["cursor"] else { return SampleFeedReply(.full(.ok, headers, first.bytes)) }
            for (index, page) in content.nwsStationPages.enumerated().dropLast()
            where NWSStationList.nextCursor(page.bytes) == cursor {
                return SampleFeedReply(.full(.ok, headers, content.nwsStationPages[index + 1].bytes))
            }
            return SampleFeedReply(.full(.ok, headers, Array(#"{"type":"FeatureCollection","features":[],"observationStations":[]}"#.utf8) + [0x0A]))
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 5, parts[3] == "observations", parts[4] == "latest", let body = content.nwsObservations[String(parts[2])] {
            headers.add(name: "ETag", value: body.etag)
            return SampleFeedReply(.full(.ok, headers, body.bytes))
        }
        var problem = HTTPHeaders()
        problem.add(name: "Content-Type", value: "application/problem+json")
        let detail = #"{"correlationId":"0","title":"Not Found","type":"https://api.weather.gov/problems/NotFound","status":404,"detail":"No observation for \#(path.utf8.count <= 80 ? path : "that path")"}"#
        return SampleFeedReply(.full(.notFound, problem, Array(detail.utf8) + [0x0A]))
    }

    /// RFC 9110 §13.1: If-None-Match (weak comparison) decides when present; otherwise
    /// If-Modified-Since is compared with the epoch start.
    static func notModified(_ headers: HTTPHeaders, etag: String, lastModified: Int64) -> Bool {
        let tags = headers[canonicalForm: "if-none-match"]
        if !tags.isEmpty {
            return tags.contains { tag in
                tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : String(tag)) == etag
            }
        }
        guard let since = headers.first(name: "if-modified-since").flatMap(HTTPDate.parse) else { return false }
        return lastModified <= since
    }

    /// Three broken records and one non-object among the good ones: an empty id, latitude 91,
    /// a null longitude, and a bare number. The fetcher must keep the rest.
    static func badRecordsBody(_ records: [OnXRecord]) -> [UInt8] {
        var broken = records
        if broken.count > 0 { broken[0].id = "" }
        if broken.count > 1 { broken[1].latitude = 91 }
        if broken.count > 2 { broken[2].longitude = .nan }  // written as null
        var writer = JSONWriter(capacity: broken.count * 200)
        writer.arrayStart()
        for record in broken { record.write(to: &writer) }
        writer.int(42)
        writer.arrayEnd()
        writer.newline()
        return writer.bytes
    }

    static func textHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        return headers
    }

    static func jsonHeaders() -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return headers
    }

    /// Path and decoded query items of a request target.
    static func split(_ uri: String) -> (path: String, query: [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for item in uri[uri.index(after: mark)...].split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecode(pair[0])
            query[key] = pair.count > 1 ? percentDecode(pair[1]) : ""
        }
        return (String(uri[..<mark]), query)
    }

    static func percentDecode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") { bytes.append(UInt8(ascii: " ")); continue }
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { continue }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The next seeded draw in [0, 1) (SplitMix64), for `--error-rate`.
    private func draw() -> Double {
        random.withLock { random in
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(UInt64(1) << 53)
        }
    }
}
