import Foundation
import Testing
@testable import IsobarCore

/// The filter's in-place station reader (`StationLineReader`) against the general path it stands
/// in for (`JSONObject` + `StationMessage(from:)`): whatever line it reads, it must read exactly
/// as the general path does; what it declines, the general path reads (or refuses) as before.
@Suite struct StationLineReaderTests {
    /// The general path's reading of `line`: nil when it is not a station message it accepts.
    static func general(_ line: [UInt8]) -> StationMessage? {
        guard let object = try? JSONObject(storage: line), (try? object.requireName("type", maxLength: .max)) == "station" else { return nil }
        return try? StationMessage(from: object)
    }

    /// Station lines as the fetcher writes them, with every kind of value the reader takes:
    /// missing and null values, negative zero, exponents, long and non-ASCII names.
    static func lines(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = TestSupport.Random(seed: seed)
        let names = ["", "A", "Fifteen bytes!!", "Sixteen bytes!!!", "Honiara / Henderson, Solomon Islands", "Žilina, Slovensko",
                     "東京国際空港", "Kasmar, IR", "Nauru International Airport, Yaren District, 14, NR"]
        var writer = JSONWriter()
        for seq in 0..<count {
            func value(_ range: ClosedRange<Double>) -> Double? {
                switch random.next() % 5 {
                case 0: nil
                case 1: 0
                default: (random.uniform(range) * 100).rounded() / 100
                }
            }
            let station = Station(id: random.next() % 7 == 0 ? "K\(seq)-Ž" : "ID\(seq)", name: names[Int(random.next() % UInt64(names.count))],
                                  coordinate: Coordinate(latitude: random.uniform(-90...90), longitude: random.uniform(-180...180)),
                                  temperature: value(-100...120), windSpeed: value(0...200), windDirection: value(0...360),
                                  precipitation: value(0...100))
            StationMessage(day: seq % 2 == 0 ? .today : .tomorrow, snapshot: "today-\(seq % 3)", seq: seq, station: station).write(to: &writer)
        }
        var lines = writer.bytes.split(separator: 0x0A).map(Array.init)
        // Forms the writer never makes but a reader must take the same way.
        lines += [
            #"{"type":"station","day":"today","snapshot":"s","seq":1e0,"id":"a","latitude":-0,"longitude":-0.0,"temperature":-0.0}"#,
            #" { "seq" : 3 , "longitude" : 1.5E1 , "id" : "b" , "latitude" : 90 , "snapshot" : "s" , "day" : "tomorrow" , "type" : "station" } "#,
            #"{"type":"station","day":"today","snapshot":"s","seq":2,"id":"c","name":null,"latitude":-90,"longitude":180,"windSpeed":null,"precipitation":100}"#,
            #"{"type":"station","day":"today","snapshot":"s","seq":4.0,"id":"d","name":"x","latitude":1,"longitude":2,"windDirection":360}"#,
        ].map { Array($0.utf8) }
        return lines
    }

    @Test func readsEveryPlainLineExactlyAsTheGeneralPath() throws {
        var reader = StationLineReader()
        for line in Self.lines(count: 3_000, seed: 7) {
            let expected = try #require(Self.general(line), "\(String(decoding: line, as: UTF8.self))")
            let read = try #require(line.withUnsafeBytes { reader.read($0, maxSeq: 5_000_000) }, "\(String(decoding: line, as: UTF8.self))")
            Self.expectSame(read, expected, line)
        }
    }

    /// Lines broken one to three bytes at a time, lines with a member duplicated, unknown or a
    /// detail, and values out of range: the reader either declines or agrees with the general path.
    @Test func neverReadsALineDifferentlyFromTheGeneralPath() {
        var reader = StationLineReader()
        var random = TestSupport.Random(seed: 11)
        let base = Self.lines(count: 400, seed: 3)
        var read = 0, declined = 0
        for (k, line) in base.enumerated() {
            var variants: [[UInt8]] = (0..<40).map { _ in random.broken(line, after: 1) }
            let text = String(decoding: line, as: UTF8.self)
            let body = String(text.dropLast())  // without its "}"
            variants += [
                body + #","seq":1}"#, body + #","id":"dup"}"#, body + #","observedAt":1795000000}"#, body + #","zz":1}"#,
                body + #","temperature":1000}"#, body + #","latitude":91}"#, body + #","name":1}"#, body + #","name":"a\u0062"}"#,
                text.replacingOccurrences(of: #""latitude":"#, with: #""latitude":-1e400,"x":"#),
                text.replacingOccurrences(of: #""id":""#, with: #""id":"\n"#),
                text.replacingOccurrences(of: #""type":"station""#, with: #""type":"statio\u006e""#),
                text.replacingOccurrences(of: #""seq":"#, with: #""seq":-"#),
                text.replacingOccurrences(of: #""seq":"#, with: #""seq":0.5"#),
                text.replacingOccurrences(of: #""day":"today""#, with: #""day":"Today""#),
                text + "\n", text + " x",
            ].map { Array($0.utf8) }
            if k % 50 == 0 { variants.append(Array(text.replacingOccurrences(of: #""snapshot":""#, with: #""snapshot":"é"#).utf8)) }
            for variant in variants {
                let expected = Self.general(variant)
                guard let got = variant.withUnsafeBytes({ reader.read($0, maxSeq: 5_000_000) }) else { declined += 1; continue }
                read += 1
                guard let expected else {
                    Issue.record("read a line the general path refuses: \(String(decoding: variant, as: UTF8.self))")
                    continue
                }
                Self.expectSame(got, expected, variant)
            }
        }
        // Both outcomes were exercised (the broken lines are not all declined by accident).
        #expect(read > 1_000)
        #expect(declined > 5_000)
    }

    /// A filter fed station lines the reader takes and one fed the same lines with an unknown
    /// member appended (which sends every line down the general path) answer byte for byte alike.
    @Test func filterAnswersTheSameThroughEitherPath() throws {
        let world = try TestSupport.world()
        var outputs: [[UInt8]] = []
        for general in [false, true] {
            let engine = FilterEngine()
            engine.register(Viewport(client: "v", region: try Region(center: Coordinate(latitude: 45, longitude: 5), latitudeDelta: 30, longitudeDelta: 40),
                                     day: .today, limit: 100_000))
            var out = JSONWriter()
            for var line in TestSupport.snapshotLines(day: .today, stations: world) {
                if general, String(decoding: line.prefix(17), as: UTF8.self) == #"{"type":"station""# {
                    line.removeLast()
                    line += Array(#","unknown":true}"#.utf8)
                }
                line.withUnsafeBytes { engine.handle(line: $0, now: 0, into: &out) }
            }
            outputs.append(out.bytes)
            #expect(engine.snapshot(for: .today)?.stations.count == world.count)
        }
        #expect(outputs[0].count > 100_000)
        #expect(outputs[0] == outputs[1])
    }

    @Test func declinesASeqAtOrBeyondTheLimit() {
        var reader = StationLineReader()
        let line = Array(#"{"type":"station","day":"today","snapshot":"s","seq":10,"id":"a","latitude":1,"longitude":2}"#.utf8)
        #expect(line.withUnsafeBytes { reader.read($0, maxSeq: 10) } == nil)
        #expect(line.withUnsafeBytes { reader.read($0, maxSeq: 11) }?.seq == 10)
    }

    /// More distinct names than the cache has slots, each read several times: every name read is
    /// exactly its bytes, whatever slot it shared.
    @Test func nameCacheReturnsExactlyTheBytesAsked() {
        var cache = NameCache()
        var random = TestSupport.Random(seed: 5)
        let names = (0..<40_000).map { "A name long enough to be on the heap \($0)" } + ["Ω≈ç√∫˜µ≤≥÷ and more", "short"]
        for _ in 0..<120_000 {
            let name = names[Int(random.next() % UInt64(names.count))]
            let got = Array(name.utf8).withUnsafeBytes { cache.string($0) }
            #expect(Array(got.utf8) == Array(name.utf8))
        }
    }

    static func expectSame(_ read: StationLineReader.Line, _ expected: StationMessage, _ line: [UInt8]) {
        let snapshot = String(decoding: line[read.snapshot], as: UTF8.self)
        #expect(read.day == expected.day && snapshot == expected.snapshot && read.seq == expected.seq, "\(String(decoding: line, as: UTF8.self))")
        #expect(read.station == expected.station, "\(String(decoding: line, as: UTF8.self))")
        // The bytes a client gets and the fingerprint (so -0 against 0, nil against NaN).
        var a = JSONWriter(), b = JSONWriter()
        read.station.writeMembers(to: &a)
        expected.station.writeMembers(to: &b)
        #expect(a.bytes == b.bytes && read.station.fingerprint == expected.station.fingerprint)
    }
}
