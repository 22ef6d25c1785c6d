import Testing
@testable import IsobarCore

/// Inputs the fuzzers found (Fuzz/README.md), kept as regression tests.
@Suite struct FuzzRegressionTests {
    /// `feeds`, 2026-11-24: a Dark Sky answer whose `currently` has none of the optional values
    /// (its keys mangled) gave a station with an empty `StationDetails`, which its station line
    /// cannot carry, so the station read back from the line differed (details nil). A station
    /// without any optional value now has no details at all.
    @Test func darkSkyStationWithoutOptionalValuesReadsBackEqual() throws {
        let body = Array(#"[{"latitude":43.40332,"longitude":-98.82952,"timezonue":"America/Chicago","currently":{"timeV":1795428000,"Dummary":"Partly Cloudy","icommary":"Partly cloudy throughout the day.","icol":"p.rtly-cloudy-day","data":[{"time":1795428000,"summary":"Partly Cloudy","icon":"partly-cloudy-day","precipIntensity":0,"precipProover":0.44,"uvIndex":3,"visibility":10,"temperatureMin":-5.5,"temperatureMax":1.8}]},"flags":{"sources":["cmc","gfs","icon","`sd","madis"],"nearest-station":1.1,"units":"si"},"offset":1}]"#.utf8)
        let feed = try DarkSkyFeed.parse(body, day: .today)
        let station = try #require(feed.stations.first)
        #expect(station.details == nil)
        var writer = JSONWriter()
        OnXFeed.writeSnapshot(day: .today, stations: feed.stations, source: .feed, fetchedAt: 1, into: &writer)
        let line = Array(try #require(writer.bytes.split(separator: 0x0A).first))
        #expect(try StationMessage(from: JSONObject(storage: line)).station == station)
        // And in general: an empty details object is dropped where a station is made.
        let made = Station(id: "A", name: "", coordinate: Coordinate(latitude: 1, longitude: 2), details: StationDetails())
        #expect(made.details == nil)
    }
}
