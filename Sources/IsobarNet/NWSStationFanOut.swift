import Foundation
import IsobarCore
import Logging

/// `--format nws` given api.weather.gov's stations list (`https://api.weather.gov/stations?state=CO`):
/// the list's pages give the station set, and each station's `/stations/{id}/observations/latest`
/// gives its weather (`NWSStationList.assemble` makes them one feed).
///
/// Polite and bounded: every request names the software (`FeedClient.userAgent`, which the service
/// requires), one request at a time, at most `maxPages` pages and `maxStations` stations a round
/// (`fetch --nws-stations`; the first ones in the list's order), and a 429/503 from the service
/// ends the round at once as throttled (its `Retry-After` then sets the next attempt). Every
/// request goes to the list's own origin (scheme, host, port): the next page is the path and query
/// of `pagination.next` asked there, and observations are asked by path, so a list's body can never
/// send the fetcher to another host.
struct NWSStationFanOut {
    static let maxPages = 10
    let client: FeedClient
    let maxStations: Int
    let logger: Logger

    /// The feed made from the list at `url` whose first page is `body`.
    func expand(url: String, firstPage body: [UInt8]) async -> FetchResponse {
        guard let origin = Self.origin(of: url) else { return .failed("stations list URL \(url) has no scheme and host") }
        var stations: [NWSStationList.Entry] = []
        var errors: [ErrorMessage] = []
        var page: NWSStationList.Page
        do { page = try NWSStationList.parse(body) } catch { return .failed(error.message) }
        var asked: Set<String> = [url]
        var pages = 1
        while true {
            for station in page.stations {
                if stations.contains(where: { $0.id == station.id }) {
                    errors.append(ErrorMessage(stage: "fetch", message: "station \(station.id) of list page \(pages) rejected: already listed on an earlier page", excerpt: station.id))
                } else {
                    stations.append(station)
                }
            }
            errors += page.errors
            guard stations.count < maxStations, !page.stations.isEmpty, pages < Self.maxPages,
                  let next = page.next.flatMap(Self.pathAndQuery), asked.insert(origin + next).inserted else { break }
            switch await client.fetch(.http(origin + next), validators: ConditionalValidators(), logger: logger) {
            case .body(let bytes, _):
                do { page = try NWSStationList.parse(try GzipFile.inflatedIfGzip(bytes, limit: client.maxBodyBytes)) } catch {
                    return .failed("stations list page \(pages + 1): \(error.message)")
                }
            case .throttled(let reason, let seconds):
                return .throttled("stations list page \(pages + 1): \(reason)", retryAfter: seconds)
            case .failed(let reason):
                return .failed("stations list page \(pages + 1): \(reason)")
            case .notModified, .parsed:
                return .failed("stations list page \(pages + 1): unexpected answer")
            }
            pages += 1
        }
        if stations.count > maxStations {
            logger.warning("the stations list has \(stations.count)+ stations; asking the first \(maxStations) (--nws-stations)", metadata: ["url": "\(url)"])
            stations.removeLast(stations.count - maxStations)
        }
        var answers: [NWSStationList.Answer] = []
        for station in stations {
            switch await client.fetch(.http(origin + NWSStationList.observationPath(station.id)), validators: ConditionalValidators(), logger: logger) {
            case .body(let bytes, _):
                answers.append(.success(bytes))
            case .throttled(let reason, let seconds):
                return .throttled("station \(station.id): \(reason)", retryAfter: seconds)
            case .failed(let reason):
                answers.append(.failure(MessageError("station \(station.id): observations/latest failed: \(reason)")))
            case .notModified, .parsed:
                answers.append(.failure(MessageError("station \(station.id): observations/latest gave an unexpected answer")))
            }
        }
        do {
            var feed = try NWSStationList.assemble(stations, answers: answers)
            feed.errors = errors + feed.errors
            return .parsed(feed, ConditionalValidators())
        } catch {
            return .failed("stations list: \(error.message)")
        }
    }

    /// `https://api.weather.gov` of `https://api.weather.gov/stations?state=CO`.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host, !host.isEmpty else { return nil }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// `/stations?state=CO&cursor=…` of a `pagination.next` URL (absolute or a path).
    static func pathAndQuery(_ url: String) -> String? {
        guard let components = URLComponents(string: url) else { return nil }
        let path = components.percentEncodedPath
        guard path.hasPrefix("/") else { return nil }
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
