import Foundation
import IsobarCore
@testable import IsobarNet
import Synchronization
import Testing

/// Request heads a loopback server received, in order.
final class ReceivedRequests: Sendable {
    private let heads = Mutex<[String]>([])
    func append(_ head: String) { heads.withLock { $0.append(head) } }
    var all: [String] { heads.withLock { $0 } }
}

/// METAR over real HTTP: the Aviation Weather Center's cache file served as it is (a gzip file,
/// `application/gzip`, no Content-Encoding) is inflated and read whole; a 429 with `Retry-After`
/// makes the next attempt wait what the server asked; every request names the software.
@Suite(.serialized) struct MetarFetchTests {
    static let header = "raw_text,station_id,observation_time,latitude,longitude,temp_c,dewpoint_c,wind_dir_degrees,wind_speed_kt,wind_gust_kt,visibility_statute_mi,altim_in_hg,sea_level_pressure_mb,wx_string,sky_cover,cloud_base_ft_agl,sky_cover,cloud_base_ft_agl,flight_category,metar_type,elevation_m\n"

    /// A cache table of `count` stations spread over the globe, every 97th one VRB, every 89th
    /// calm, every 10th without temperature, every 7th with `10+` visibility.
    static func bulkTable(_ count: Int) -> [UInt8] {
        var text = header
        for index in 0..<count {
            let id = "X" + String(index, radix: 36).uppercased()
            let latitude = Double((index * 7919) % 17_000) / 100 - 85, longitude = Double((index * 104_729) % 35_900) / 100 - 179.5
            let direction = index % 97 == 0 ? "VRB" : index % 89 == 0 ? "0" : String((index * 10) % 360 + 10)
            let speed = index % 89 == 0 ? "0" : String(index % 40)
            let temperature = index % 10 == 0 ? "" : String(Double(index % 600) / 10 - 25)
            let visibility = index % 7 == 0 ? "10+" : String(Double(index % 90) / 10)
            text += "\(id) 260750Z \(direction == "VRB" ? "VRB" : direction)\(speed)KT,\(id),2026-11-26T07:50:00Z,\(latitude),\(longitude),\(temperature),"
                + "\(temperature.isEmpty ? "" : "-30"),\(direction),\(speed),,\(visibility),29.92,,,BKN,1200,,,VFR,METAR,10\n"
        }
        return Array(text.utf8)
    }

    static func response(_ status: String, headers: [String], body: [UInt8]) -> [UInt8] {
        Array((["HTTP/1.1 \(status)"] + headers + ["Content-Length: \(body.count)", "Connection: close", "", ""]).joined(separator: "\r\n").utf8) + body
    }

    @Test func theBulkCacheFileServedAsGzipIsInflatedAndEveryStationRead() async throws {
        let plain = Self.bulkTable(4_000)
        let expected = try MetarFeed.parse(plain)
        #expect(expected.stations.count == 4_000 && expected.errors.isEmpty)
        let gzip = try GzipFeedTests.gzip(plain)
        #expect(gzip.count < plain.count / 3)
        let received = ReceivedRequests()
        let port = try GzipFeedTests.serve(Self.response("200 OK", headers: ["Content-Type: application/gzip"], body: gzip),
                                           connections: 1, received: received)
        let url = "http://127.0.0.1:\(port)/data/cache/metars.cache.csv.gz"
        let options = FetchOptions(today: url, tomorrow: url, timeout: 30, format: .metar)
        try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.fetch(.today))
            let latest = try #require(await fetcher.latest(.today))
            // Exactly what parsing the plain table gives, station for station, every field.
            #expect(latest.stations == expected.stations)
            #expect(try output.count("station") == 4_000)
            let first = try #require(latest.stations.first { $0.id == "X0" })
            // X0: VRB at 0 kt, no temperature, "10+".
            #expect(first.windDirection == nil && first.windSpeed == 0 && first.temperature == nil && first.details?.visibility == 10)
        }
        let head = try #require(received.all.first)
        #expect(head.contains("\r\nUser-Agent: isobar-fetch/1 (Isobar weather pipeline)\r\n"), "request was: \(head)")
    }

    @Test func aGzipFileInflatingPastTheLimitIsRefused() throws {
        let bomb = try GzipFeedTests.gzip(Array(repeating: 0x20, count: 4 << 20))
        #expect(throws: MessageError("gzip body inflates past the 1048576-byte limit; stopped reading")) {
            try GzipFile.inflatedIfGzip(bomb, limit: 1 << 20)
        }
        var truncated = try GzipFeedTests.gzip(Self.bulkTable(50))
        truncated.removeLast(truncated.count / 2)
        #expect(throws: MessageError("gzip body is truncated")) { try GzipFile.inflatedIfGzip(truncated, limit: 1 << 20) }
        // Two members (concatenated gzip files) are one file; a plain body passes untouched.
        let two = try GzipFeedTests.gzip(Array("ab".utf8)) + GzipFeedTests.gzip(Array("cd".utf8))
        #expect(try GzipFile.inflatedIfGzip(two, limit: 100) == Array("abcd".utf8))
        #expect(try GzipFile.inflatedIfGzip(Array("plain".utf8), limit: 1) == Array("plain".utf8))
    }

    @Test func a429WithRetryAfterWaitsWhatTheServerAsked() async throws {
        let port = try GzipFeedTests.serve(Self.response("429 Too Many Requests", headers: ["Retry-After: 120"], body: []), connections: 1)
        let url = "http://127.0.0.1:\(port)/api/data/metar?ids=KSFO&format=json"
        let options = FetchOptions(today: url, tomorrow: url, backoffBase: 1, backoffCap: 300, format: .metar)
        try await TestSupport.withFetcher(options, jitter: .fixed(0.5)) { fetcher, output throws in
            #expect(await fetcher.fetch(.today) == false)
            let status = try #require(try output.statuses().first)
            #expect(status.reason == "HTTP 429 Too Many Requests (Retry-After 120 s)")
            // The backoff alone would be 0.5 s; the server asked for 120.
            #expect(status.retryIn == 120)
            #expect(await fetcher.secondsUntilDue(.today) > 119)
        }
    }

    @Test func retryAfterIsReadAsDeltaSecondsOnlyAndCapped() {
        #expect(FeedClient.retryAfter("120") == 120)
        #expect(FeedClient.retryAfter("0") == 0)
        #expect(FeedClient.retryAfter(nil) == nil)
        #expect(FeedClient.retryAfter("-5") == nil)
        #expect(FeedClient.retryAfter("Wed, 21 Oct 2026 07:28:00 GMT") == nil)
        #expect(FeedClient.retryAfter("99999999999") == nil)
        var poller = FeedPoller(interval: 60, backoff: Backoff(initial: .seconds(1), maximum: .seconds(300)))
        _ = poller.begin()
        let decision = poller.complete(.throttled(reason: "HTTP 429", retryAfter: 86_400 * 30), now: 0, jitter: 0.5)
        #expect(decision == .failed(reason: "HTTP 429", attempt: 1, retryIn: FeedPoller.maxRetryAfter))
    }
}
