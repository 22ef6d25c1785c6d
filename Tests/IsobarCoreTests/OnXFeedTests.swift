import Testing
@testable import IsobarCore

@Suite struct OnXFeedTests {
    @Test func parsesTheRealFeedsExactly() throws {
        let today = try OnXFeed.parse(TestSupport.fixture("today.json"))
        #expect(today.stations.count == 181)
        #expect(today.errors.isEmpty && today.warnings.isEmpty)
        let k1d3 = try #require(today.stations.first { $0.id == "K1D3" })
        #expect(k1d3.windSpeed == 6.90468887898 && k1d3.windDirection == 270 && k1d3.temperature == 46.4)
        #expect(today.stations.filter { $0.temperature == nil }.map(\.id).sorted() == ["K6V4", "KOFK"])
        #expect(today.stations.filter { $0.windSpeed == nil }.map(\.id).sorted() == ["K6S5", "K6V4", "KTPH"])
        #expect(today.stations.first { $0.id == "KEAR" }?.coordinate.longitude == -99)
        let tomorrow = try OnXFeed.parse(TestSupport.fixture("tomorrow.json"))
        #expect(tomorrow.stations.count == 181)
        #expect(tomorrow.warnings.count == 5)
        #expect(tomorrow.warnings.allSatisfy { $0.message == "chance_of_precipitation 105 is outside 0...100; clamped to 100" })
        #expect(tomorrow.stations.allSatisfy { ($0.precipitation ?? 0) <= 100 })
    }

    @Test func badRecordsAreRejectedAndTheRestKept() throws {
        let body = #"[{"id":"A","name":"a","latitude":1,"longitude":2,"temperature":null,"wind_speed":null,"wind_direction":null,"chance_of_precipitation":5},{"id":"","latitude":1,"longitude":2},{"id":"C","latitude":91,"longitude":2},7,{"id":"A","latitude":0,"longitude":0}]"#
        let parsed = try OnXFeed.parse(Array(body.utf8))
        #expect(parsed.stations.map(\.id) == ["A"])
        #expect(parsed.errors.count == 4)
        #expect(parsed.stations[0].temperature == nil)
    }

    @Test(arguments: ["{}", "[]", "not json", #"[1,2]"#, #"[{"id":"A""#])
    func bodiesThatAreNotFeedsPublishNothing(_ body: String) {
        #expect(throws: MessageError.self) { try OnXFeed.parse(Array(body.utf8)) }
    }

    @Test func snapshotIDsFollowContent() throws {
        var stations = try TestSupport.onx(.today)
        let first = OnXFeed.snapshotID(day: .today, stations: stations)
        #expect(first == OnXFeed.snapshotID(day: .today, stations: stations))
        #expect(first != OnXFeed.snapshotID(day: .tomorrow, stations: stations))
        stations[0].temperature = (stations[0].temperature ?? 0) + 1
        #expect(first != OnXFeed.snapshotID(day: .today, stations: stations))
    }
}
