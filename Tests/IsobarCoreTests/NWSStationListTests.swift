import Foundation
import Testing
@testable import IsobarCore

/// api.weather.gov's stations list (Fixtures/feeds/nws-stations.json and -2.json, written from
/// the service's OpenAPI shape: a FeatureCollection of `wx:ObservationStation` features with
/// `stationIdentifier`, `name`, `timeZone`, `elevation`, beside `observationStations` and
/// `pagination.next`): read as the station set whose latest observations make the feed.
@Suite struct NWSStationListTests {
    @Test func aPageGivesItsStationsInOrderAndRejectsBadOnesAlone() throws {
        let page = try NWSStationList.parse(TestSupport.fixture("feeds/nws-stations.json"))
        #expect(page.stations == [
            NWSStationList.Entry(id: "KSFO", name: "San Francisco, San Francisco International Airport",
                                 coordinate: Coordinate(latitude: 37.61961, longitude: -122.36558)),
            NWSStationList.Entry(id: "KDEN", name: "Denver International Airport", coordinate: Coordinate(latitude: 39.84657, longitude: -104.65622)),
            NWSStationList.Entry(id: "KNOB", name: "Nobody Reports Here", coordinate: Coordinate(latitude: 40.2, longitude: -105.1)),
        ])
        #expect(page.errors.map(\.message) == [
            #"station 3 of the list rejected: stationIdentifier "K/../X" is not 1 to 16 letters and digits"#,
            #"station 4 of the list rejected: field "geometry" must be an object, found null"#,
        ])
        #expect(page.errors.map(\.code) == [.outOfRange, .fieldType])
        #expect(page.next == "https://api.weather.gov/stations?state=CA,CO&limit=5&cursor=eyJzIjoiS0hBRiJ9")
        #expect(NWSStationList.nextCursor(try TestSupport.fixture("feeds/nws-stations.json")) == "eyJzIjoiS0hBRiJ9")
        // The last page: no stations, still a list.
        let last = Array(#"{"type":"FeatureCollection","features":[],"observationStations":[]}"#.utf8)
        #expect(NWSStationList.isList(last))
        #expect(try NWSStationList.parse(last) == NWSStationList.Page())
    }

    @Test func aBodyThatIsNoStationsListIsRefusedWhole() throws {
        let observations = try TestSupport.fixture("feeds/nws.json")
        #expect(!NWSStationList.isList(observations))
        for body in [observations, Array(#"{"type":"FeatureCollection"}"#.utf8), Array("<html>".utf8)] {
            #expect(throws: MessageError.self) { try NWSStationList.parse(body) }
        }
        #expect(throws: MessageError("feed body is not \(NWSStationList.expected): it has no \"features\" array of stations; keeping the previous snapshot")) {
            try NWSStationList.parse(Array(#"{"type":"Feature","properties":{"stationId":"KSFO"}}"#.utf8))
        }
        // Read as observations (a file source), a list is refused whole, never stations without values.
        #expect(throws: MessageError("feed body is not \(NWSFeed.expected): it is a stations list (/stations), which --format nws reads only from an http(s) URL, asking each station's observations/latest on the same service; keeping the previous snapshot")) {
            try NWSFeed.parse(TestSupport.fixture("feeds/nws-stations.json"))
        }
    }

    @Test func theLatestObservationsMakeTheFeedAndAFailedStationIsRejectedAlone() throws {
        let observations = NWSFeed.observationsByStation(try TestSupport.fixture("feeds/nws.json"))
        #expect(observations.keys.sorted() == ["KDEN", "KHAF", "KSFO"])
        let reference = try NWSFeed.parse(TestSupport.fixture("feeds/nws.json")).stations
        let page = try NWSStationList.parse(TestSupport.fixture("feeds/nws-stations.json"))
        var answers: [NWSStationList.Answer] = page.stations.map { entry in
            observations[entry.id].map { .success($0) } ?? .failure(MessageError("station \(entry.id): observations/latest failed: HTTP 404 Not Found"))
        }
        let feed = try NWSStationList.assemble(page.stations, answers: answers)
        // Every field exactly as the observation Features read alone (NWSFeedTests has them line by line).
        #expect(feed.stations == Array(reference.prefix(2)))
        #expect(feed.errors.map(\.message) == ["record 2 rejected: station KNOB: observations/latest failed: HTTP 404 Not Found"])
        #expect(feed.errors.map(\.excerpt) == ["KNOB"])

        // An observation of another station, and a body that is no observation: each rejected alone.
        let khaf = NWSStationList.Entry(id: "KHAF", name: "Half Moon Bay Airport", coordinate: Coordinate(latitude: 37.51344, longitude: -122.50111))
        answers = [.success(try #require(observations["KDEN"])), .success(Array("[1]".utf8)), .success(try #require(observations["KHAF"]))]
        let mixed = try NWSStationList.assemble(Array(page.stations.prefix(2)) + [khaf], answers: answers)
        #expect(mixed.stations == [reference[2]])
        #expect(mixed.errors.map(\.message) == [
            #"record 0 rejected: station KSFO: the observation is of station "KDEN""#,
            "record 1 rejected: station KDEN: its latest observation is not a JSON object (expected a JSON object, found another JSON value at byte 0)",
        ])
    }

    @Test func aStationWithoutANameOfItsOwnIsNamedFromTheList() throws {
        let entry = NWSStationList.Entry(id: "KAAA", name: "Listed Name", coordinate: Coordinate(latitude: 40, longitude: -100))
        let body = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-100,40]},"properties":{"station":"https://api.weather.gov/stations/KAAA","timestamp":"2026-11-26T07:50:00+00:00","temperature":{"unitCode":"wmoUnit:degC","value":10}}}"#
        let feed = try NWSStationList.assemble([entry], answers: [.success(Array(body.utf8))])
        #expect(feed.stations.map(\.name) == ["Listed Name"])
        #expect(feed.stations.first?.temperature == 50)
        #expect(throws: MessageError("feed has no valid station record (1 rejected); keeping the previous snapshot")) {
            try NWSStationList.assemble([entry], answers: [.failure(MessageError("station KAAA: observations/latest failed: HTTP 500 Internal Server Error"))])
        }
    }
}
