import Testing
@testable import IsobarCore

/// A snapshot finds ids with ASCII case ignored whether the id is upper case (through its own exact
/// id index) or mixed case (through the small table of such ids).
@Suite struct IDLookupTests {
    @Test func upperAndMixedCaseIdsAreFoundWhateverTheQuerysCase() {
        let stations = ["KSEA", "abC1", "K1D3", "2643743", "ksea"].enumerated().map { n, id in
            Station(id: id, name: "Station \(n)", coordinate: Coordinate(latitude: Double(n), longitude: 0))
        }
        let snapshot = StationSnapshot(end: SnapshotEnd(day: .today, snapshot: "t", count: stations.count, source: .feed, fetchedAt: 0),
                                       stations: stations, interner: KeyInterner())
        func ids(_ query: String) -> [String] { snapshot.search(query, limit: 10).filter { $0.match == .id }.map(\.station.id) }
        #expect(ids("ksea") == ["KSEA", "ksea"])
        #expect(ids("KSeA") == ["KSEA", "ksea"])
        #expect(ids("ABC1") == ["abC1"])
        #expect(ids("k1d3") == ["K1D3"])
        #expect(ids("2643743") == ["2643743"])
        #expect(ids("nope").isEmpty)
    }
}
