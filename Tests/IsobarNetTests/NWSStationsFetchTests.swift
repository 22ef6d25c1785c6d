import Foundation
import IsobarCore
import IsobarNet
import IsobarSampleFeed
import Testing

/// `--format nws` given api.weather.gov's stations list, over real HTTP against the sample feed
/// (which serves `/stations`, its pages by `cursor`, and `/stations/{id}/observations/latest` from
/// the NWS fixtures): the list's pages give the stations, each station's latest observation its
/// weather, one request at a time; a bad list entry and a station without an observation are
/// rejected alone; `--nws-stations` bounds the requests.
@Suite struct NWSStationsFetchTests {
    @Test func aStationsListIsFannedOutToEachStationsLatestObservation() async throws {
        let reference = try NWSFeed.parse(Array(try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixtures + "/feeds/nws.json")))).stations
        try await TestSupport.withServer { server throws in
            let url = "http://127.0.0.1:\(server.port)/stations?state=CA,CO&limit=5"
            let options = FetchOptions(today: url, tomorrow: "nws+" + TestSupport.fixtures + "/feeds/nws.json", once: true, format: .nws)
            try await TestSupport.withFetcher(options) { fetcher, output throws in
                let before = server.responder.requests
                #expect(await fetcher.fetch(.today))
                // Three pages (the last one empty) and four observations (KSFO, KDEN, KNOB, KHAF).
                #expect(server.responder.requests - before == 7)
                // Every field as the observation Features read alone, in the list's order.
                #expect(await fetcher.latest(.today)?.stations == reference)
                let errors = try output.messages().filter { $0.field("type").flatMap($0.string) == "error" }.map { try $0.requireString("message") }
                #expect(errors == [
                    #"station 3 of the list rejected: stationIdentifier "K/../X" is not 1 to 16 letters and digits"#,
                    #"station 4 of the list rejected: field "geometry" must be an object, found null"#,
                    "station KSFO of list page 2 rejected: already listed on an earlier page",
                    "record 2 rejected: station KNOB: observations/latest failed: HTTP 404 Not Found",
                ])
                #expect(try output.statuses().last?.formats == ["nws"])
            }
            // --nws-stations 2: one page, two observations.
            var bounded = options
            bounded.nwsMaxStations = 2
            try await TestSupport.withFetcher(bounded) { fetcher, _ throws in
                let before = server.responder.requests
                #expect(await fetcher.fetch(.today))
                #expect(server.responder.requests - before == 3)
                #expect(await fetcher.latest(.today)?.stations == Array(reference.prefix(2)))
            }
            // A list read from a file cannot be fanned out: refused whole, nothing published.
            let file = FetchOptions(today: TestSupport.fixtures + "/feeds/nws-stations.json", tomorrow: url, once: true, format: .nws)
            try await TestSupport.withFetcher(file) { fetcher, output throws in
                #expect(!(await fetcher.fetch(.today)))
                #expect(try output.count("station") == 0)
                #expect(try output.statuses().last?.reason.contains("it is a stations list (/stations)") == true)
            }
        }
    }
}
