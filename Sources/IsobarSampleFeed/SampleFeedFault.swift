import IsobarNet
/// A way for the sample feed to misbehave, chosen per request (`?fault=...`) or for every request
/// (`--fault ...`), so one server can exercise each failure path of the fetcher.
///
/// Spellings (flag value or query value): `500`, `404` (any status 400-599), `delay=SECONDS`,
/// `slow` or `slow=SECONDS`, `truncate`, `drop`, `notjson`, `huge`, `badrecords`, `empty`,
/// `redirectloop`, `redirect=URL`. `:` works in place of `=` (`delay:2`).
public enum SampleFeedFault: Sendable, Equatable, CustomStringConvertible {
    /// Answer with this status and a short text body.
    case status(Int)
    /// Wait this many seconds, then answer normally.
    case delay(Double)
    /// Send the body in small pieces spread over this many seconds (nil: the server's `slowSeconds`).
    case slow(Double?)
    /// Declare the full Content-Length, send half the body, close the connection.
    case truncate
    /// Close the connection without any response.
    case drop
    /// 200 with an HTML page, as a captive portal or a misconfigured proxy would send.
    case notJSON
    /// 200 with a streamed body of the server's `hugeBytes` (16 MiB by default), over any sane limit.
    case huge
    /// 200 with a valid array in which some records are invalid (no id, latitude 91, a string longitude, a number).
    case badRecords
    /// 200 with `[]`.
    case empty
    /// 302 to the very same URL, forever.
    case redirectLoop
    /// 302 to the given location (another scheme, another host): what the fetcher may follow.
    case redirect(String)

    public init(parsing text: String) throws(SampleFeedError) {
        let lowered = text.lowercased()
        let separator = lowered.firstIndex { $0 == "=" || $0 == ":" }
        let name = separator.map { String(lowered[..<$0]) } ?? lowered
        let argument = separator.map { String(lowered[lowered.index(after: $0)...]) }
        // (A redirect target keeps its case.)
        let rawArgument = text.firstIndex { $0 == "=" || $0 == ":" }.map { String(text[text.index(after: $0)...]) }
        func seconds(_ argument: String?) throws(SampleFeedError) -> Double? {
            guard let argument else { return nil }
            guard let value = Double(argument), value.isFinite, value >= 0, value <= 3600 else {
                throw SampleFeedError("fault \"\(text)\": \"\(argument)\" is not a number of seconds between 0 and 3600")
            }
            return value
        }
        switch name {
        case "delay":
            guard let value = try seconds(argument) else { throw SampleFeedError("fault \"delay\" needs seconds: delay=2") }
            self = .delay(value)
        case "slow": self = .slow(try seconds(argument))
        case "truncate": self = .truncate
        case "drop": self = .drop
        case "notjson": self = .notJSON
        case "huge": self = .huge
        case "badrecords": self = .badRecords
        case "empty": self = .empty
        case "redirectloop": self = .redirectLoop
        case "redirect":
            guard let rawArgument, !rawArgument.isEmpty else { throw SampleFeedError("fault \"redirect\" needs a location: redirect=URL") }
            self = .redirect(rawArgument)
        default:
            guard argument == nil, let code = Int(name), (400...599).contains(code) else {
                throw SampleFeedError("unknown fault \"\(text)\": use an HTTP status 400-599, delay=SECONDS, slow[=SECONDS], truncate, drop, notjson, huge, badrecords, empty, redirectloop or redirect=URL")
            }
            self = .status(code)
        }
    }

    public var description: String {
        switch self {
        case .status(let code): "\(code)"
        case .delay(let seconds): "delay=\(seconds)"
        case .slow(let seconds): seconds.map { "slow=\($0)" } ?? "slow"
        case .truncate: "truncate"
        case .drop: "drop"
        case .notJSON: "notjson"
        case .huge: "huge"
        case .badRecords: "badrecords"
        case .empty: "empty"
        case .redirectLoop: "redirectloop"
        case .redirect(let location): "redirect=\(location)"
        }
    }

    /// The faults `--error-rate` picks from: the transient kinds a real CDN or origin produces.
    static let randomPool: [SampleFeedFault] = [.status(500), .status(503), .truncate, .drop, .notJSON]
}
