import Testing
@testable import IsobarCore

/// Values outside physical ranges (issue 27, item 9: ±1.8e308 made cluster means null and titles
/// a bare "°"; 1.7e308 here, as 1.8e308 is past a Double and already refused) are refused with an error naming the field: by fetch, record by record, and by every
/// reader of a station line.
@Suite struct PhysicalRangeTests {
    @Test func fetchRejectsTheRecordAndNamesTheField() throws {
        let body = Array("""
            [{"id":"A","name":"A","latitude":1,"longitude":1,"temperature":1.7e308},
             {"id":"B","name":"B","latitude":1,"longitude":1,"temperature":-1.7e308},
             {"id":"C","name":"C","latitude":1,"longitude":1,"wind_speed":1e300},
             {"id":"D","name":"D","latitude":1,"longitude":1,"temperature":134,"wind_speed":253}]
            """.utf8)
        let parsed = try OnXFeed.parse(body)
        #expect(parsed.stations.map(\.id) == ["D"])
        #expect(parsed.errors.map(\.message) == [
            "record 0 rejected: temperature 1.7e+308 is outside the physical range [-200, 200] °F",
            "record 1 rejected: temperature -1.7e+308 is outside the physical range [-200, 200] °F",
            "record 2 rejected: windSpeed 1e+300 is outside the physical range [0, 500] mph",
        ])
    }

    @Test func aStationLineOutsideTheRangesIsAnErrorAndTheSnapshotIsNotUsed() throws {
        let engine = FilterEngine()
        var writer = JSONWriter()
        let lines = [
            #"{"type":"station","day":"today","snapshot":"s","seq":0,"id":"A","latitude":1,"longitude":1,"temperature":1.7e308}"#,
            #"{"type":"station","day":"today","snapshot":"s","seq":1,"id":"B","latitude":1,"longitude":1,"feelsLike":-1.7e308}"#,
            #"{"type":"station","day":"today","snapshot":"s","seq":2,"id":"C","latitude":1,"longitude":1,"windGust":1e309}"#,
        ]
        for line in lines { Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, now: 1, into: &writer) } }
        let messages = TestSupport.objects(writer).map { $0.str("message") }
        try #require(messages.count == 3)
        #expect(messages[0]?.contains("temperature 1.7e+308 is outside the physical range [-200, 200] °F") == true)
        #expect(messages[1]?.contains("feelsLike -1.7e+308 is outside the physical range [-200, 200] °F") == true)
        #expect(messages[2] != nil)
    }
}
