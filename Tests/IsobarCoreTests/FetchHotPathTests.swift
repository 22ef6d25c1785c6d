@testable import IsobarCore
import Testing

/// The fast paths of reading a big onX feed give exactly what the plain ways did: the snapshot
/// ids' FNV-1a of strings, the id set, the splitter's word-at-a-time skip.
@Suite struct FetchHotPathTests {
    @Test func stringsHashAsTheirBytesOneByOne() {
        func reference(_ text: String) -> UInt64 {
            var hash = FNV1a()
            for byte in text.utf8 { hash.add(byte: byte) }
            hash.add(byte: 0xFF)
            return hash.value
        }
        // FNV-1a 64 of "a" is af63dc4c8601ec8c; then the 0xFF separator.
        var a = FNV1a()
        a.add("a")
        let expected: UInt64 = (0xaf63_dc4c_8601_ec8c ^ 0xFF) &* 0x0000_0100_0000_01B3
        #expect(a.value == expected)
        let long = String(repeating: "Mount Hagen Kagamuga Airport, ", count: 5)
        for text in ["", "a", "KMMT-177", "Ünïcödé name", "tab\there \"q\"", long, String(long.dropFirst(3)), "😀 é"] {
            var hash = FNV1a()
            hash.add(text)
            #expect(hash.value == reference(text), "\(text)")
        }
    }

    /// Many ids through several growths (each one moves the tags' bits up by one), a third of them
    /// repeats, some sharing their first or last characters: exactly the first of each id is kept.
    @Test func idSetKeepsTheFirstOfEachIdThroughGrowth() {
        var random = TestSupport.Random(seed: 3)
        var set = StationIDSet(expected: 100)
        var reference = Set<String>()
        var stations: [Station] = []
        for _ in 0..<150_000 {
            let n = random.next() % 100_000
            let id = random.next() % 2 == 0 ? "K\(n)" : "\(n)-a-long-station-identifier"
            stations.append(Station(id: id, name: "", coordinate: Coordinate(latitude: 1, longitude: 2)))
            let inserted = set.insert(position: stations.count - 1, of: stations)
            #expect(inserted == reference.insert(id).inserted, "\(id)")
            if !inserted { stations.removeLast() }
        }
        #expect(stations.count == reference.count)
        #expect(Set(stations.map(\.id)).count == stations.count)
    }
}
