@testable import IsobarCore
import Testing

@Suite struct StationIDSetTests {
    /// Random ids, many repeated, through growth from a tiny table: the set accepts exactly the
    /// first of each id, as a `Set<String>` does.
    @Test func acceptsExactlyTheFirstOfEachIdLikeASet() {
        var random = TestSupport.Random(seed: 42)
        func next() -> UInt64 { random.next() }
        var set = StationIDSet()
        var reference = Set<String>()
        var stations: [Station] = []
        var accepted = 0
        for _ in 0..<20_000 {
            // Short (inline) and long (heap) ids, a third of them repeats.
            let n = next() % 15_000
            let id = n % 2 == 0 ? "K\(n)" : "a-rather-long-station-identifier-\(n)"
            stations.append(Station(id: id, name: "x", coordinate: Coordinate(latitude: 1, longitude: 2)))
            let inserted = set.insert(position: stations.count - 1, of: stations)
            #expect(inserted == reference.insert(id).inserted, "\(id)")
            if inserted { accepted += 1 } else { stations.removeLast() }
        }
        #expect(accepted == reference.count)
        #expect(stations.count == reference.count)
    }

    /// Two spellings of one accented id are two stations (compared as bytes, PROTOCOL.md).
    @Test func idsThatDifferOnlyInNormalizationAreNotDuplicates() {
        var set = StationIDSet()
        var stations: [Station] = []
        for n in 0..<3_000 {
            for id in ["s\(n)\u{e9}", "s\(n)e\u{301}"] {
                stations.append(Station(id: id, name: "x", coordinate: Coordinate(latitude: 1, longitude: 2)))
                let inserted = set.insert(position: stations.count - 1, of: stations)
                #expect(inserted, "\(id)")
            }
        }
        #expect(stations.count == 6_000)
    }
}
