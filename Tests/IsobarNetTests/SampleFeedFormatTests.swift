import Foundation
import IsobarCore
import IsobarNet
import IsobarSampleFeed
import NIOHTTP1
import Testing

/// The sample feed serves every format (issue 14): `/openweather.json`, `/darksky.json` and
/// `/airvisual.json` are those formats' fixtures byte for byte, `--format` makes the day files one
/// of them, and the fetcher reading each over real HTTP gets exactly the stations the fixture
/// file gives.
@Suite struct SampleFeedFormatTests {
    static let files: [(FeedFormat, String)] = [(.openweather, "feeds/openweather-group.json"), (.darksky, "feeds/darksky.json"),
                                                (.airvisual, "feeds/airvisual.json"), (.metar, "feeds/metar.json"), (.openmeteo, "feeds/openmeteo.json"),
                                                (.nws, "feeds/nws.json")]

    func fixture(_ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixtures + "/" + file)))
    }

    func body(_ reply: SampleFeedReply) -> (HTTPResponseStatus, [UInt8])? {
        guard case .full(let status, _, let bytes) = reply.kind else { return nil }
        return (status, bytes)
    }

    @Test func eachFormatHasItsPathAndTheDayFilesFollowFormat() throws {
        let content = try SampleFeedContent(directory: TestSupport.fixtures, drift: SampleFeedDrift(seed: 1))
        let onx = SampleFeedResponder(options: SampleFeedOptions(), content: content, origin: 10_000)
        for (format, file) in Self.files {
            let served = try #require(body(onx.reply(method: .GET, uri: "/\(format.rawValue).json", headers: [:], now: 10_005)))
            #expect(served.0 == .ok)
            #expect(served.1 == (try fixture(file)), "\(format)")
            // The day files stay onX unless --format says otherwise.
            #expect(body(onx.reply(method: .GET, uri: "/today.json", headers: [:], now: 10_005))?.1 == (try TestSupport.fixtureBytes(.today)))
            let other = SampleFeedResponder(options: SampleFeedOptions(format: format), content: content, origin: 10_000)
            for day in ["today", "tomorrow"] {
                #expect(body(other.reply(method: .GET, uri: "/\(day).json", headers: [:], now: 99_999))?.1 == (try fixture(file)))
            }
        }
        #expect(throws: SampleFeedError.self) { try SampleFeedOptions(format: .auto).validate() }
    }

    @Test func aMissingFormatFixtureIs404() throws {
        let content = try SampleFeedContent(fixtures: [.today: try TestSupport.fixtureBytes(.today), .tomorrow: try TestSupport.fixtureBytes(.tomorrow)],
                                            drift: nil)
        let responder = SampleFeedResponder(options: SampleFeedOptions(), content: content, origin: 0)
        let reply = try #require(body(responder.reply(method: .GET, uri: "/darksky.json", headers: [:], now: 1)))
        #expect(reply.0 == .notFound)
        #expect(String(decoding: reply.1, as: UTF8.self).contains("feeds/darksky.json"))
    }

    @Test func theFetcherReadsEachServedFormatAsItsFixture() async throws {
        try await TestSupport.withServer { server throws in
            for (format, file) in Self.files {
                let options = FetchOptions(today: "\(format.rawValue)+" + server.baseURL + "/\(format.rawValue).json",
                                           tomorrow: "\(format.rawValue)+" + server.baseURL + "/\(format.rawValue).json")
                let expected = try format.parse(try fixture(file), day: .today).feed
                try await TestSupport.withFetcher(options) { fetcher, _ throws in
                    #expect(await fetcher.fetch(.today))
                    let latest = try #require(await fetcher.latest(.today))
                    #expect(latest.stations == expected.stations, "\(format)")
                    #expect(latest.stations.count >= 2)
                }
            }
        }
    }
}
