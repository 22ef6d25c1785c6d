@testable import IsobarCore
import Testing

/// The fast paths of reading a big onX feed give exactly what the plain ways did: the snapshot
/// ids' FNV-1a of strings and paired fingerprints, the id set, the splitter's word-at-a-time
/// skip, the key tags of the duplicate-key check.
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

    @Test func wordAtATimeSplitterSkipLandsOnTheFirstStructuralByte() {
        var random = TestSupport.Random(seed: 9)
        let alphabet: [UInt8] = Array(#""\{}[]:, az09"#.utf8) + [0x00, 0x1F, 0x3B, 0x5A, 0x5E, 0x7A, 0x7C, 0x7E, 0x7F, 0x80, 0xDB, 0xFD, 0xFF]
        for _ in 0..<200_000 {
            var bytes: [UInt8] = []
            for _ in 0..<8 {
                // Mostly plain letters, sometimes a structural or near-structural byte.
                bytes.append(random.next() % 5 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(0x61 + random.next() % 26))
            }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let found = JSONArrayStream.structuralBytes(word)
            let first = bytes.firstIndex { JSONArrayStream.isStructural($0) }
            #expect((found == 0 ? nil : found.trailingZeroBitCount >> 3) == first, "\(bytes)")
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
    @Test func pairedFingerprintsAreEachStationsOwn() {
        var random = TestSupport.Random(seed: 21)
        let names = ["", "x", "Honiara / Henderson, Solomon Islands", "Ünïcödé — 東京", String(repeating: "long name ", count: 30)]
        func value() -> Double? {
            switch random.next() % 5 {
            case 0: nil
            case 1: -0.0
            default: random.uniform(-200...200)
            }
        }
        func station() -> Station {
            Station(id: "K\(random.next() % 1_000_000)" + (random.next() % 3 == 0 ? "-ÅØ" : ""),
                    name: names[Int(random.next() % UInt64(names.count))],
                    coordinate: Coordinate(latitude: random.uniform(-90...90), longitude: random.uniform(-180...180)),
                    temperature: value(), windSpeed: value(), windDirection: value(), precipitation: value(),
                    details: random.next() % 10 == 0 ? StationDetails(summary: "Rain") : nil)
        }
        for _ in 0..<20_000 {
            let (a, b) = (station(), station())
            let (fa, fb) = Station.fingerprints(a, b)
            #expect(fa == a.fingerprint && fb == b.fingerprint, "\(a) \(b)")
        }
    }

    @Test func keyTagsReadInOneLoadAreTheBytesTags() {
        let bytes: [UInt8] = Array(#"{"id":1,"a":2,"latitude":3,"chance_of_precipitation":4,"":5,"k"#.utf8)
        bytes.withUnsafeBytes { raw in
            for start in 0..<raw.count {
                for end in start...min(raw.count, start + 12) {
                    var expected: UInt64 = 0
                    for k in 0..<min(7, end - start) { expected |= UInt64(raw[start + k]) << (8 * UInt64(k)) }
                    expected |= UInt64(end - start) << 56
                    #expect(JSONKeySet.Key(range: start..<end, escaped: false, in: raw).tag == expected, "\(start)..<\(end)")
                }
            }
        }
    }
}
