import Testing
@testable import IsobarCore

/// The filter's per-snapshot cache of `visible` item bytes (`StationItemBytes`): what it copies
/// must be exactly what writing the station gives, and a station whose data changes (a new
/// snapshot) must be written from its new data.
@Suite struct StationItemBytesTests {
    func feed(_ engine: FilterEngine, _ lines: [[UInt8]]) -> String {
        var writer = JSONWriter()
        for line in lines { line.withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &writer) } }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func feed(_ engine: FilterEngine, _ text: String) -> String { feed(engine, [Array(text.utf8)]) }

    func viewport(_ client: String, _ lat: Double, _ lon: Double, _ span: Double) -> String {
        #"{"type":"viewport","client":"\#(client)","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":\#(span),"longitudeDelta":\#(span)}}"#
    }

    /// Two stations near (10, 20), one with an escaped name and an icon.
    func stations(temperature: Double) -> [Station] {
        [Station(id: "A1", name: #"Say "hi"\ here"#, coordinate: Coordinate(latitude: 10.5, longitude: 20.25),
                 temperature: temperature, windSpeed: 3.5, details: StationDetails(icon: .rain)),
         Station(id: "B2", name: "Plain", coordinate: Coordinate(latitude: 11, longitude: 21), temperature: 50, precipitation: 0)]
    }

    @Test func aStationWhoseDataChangesIsWrittenAfreshFromTheNewSnapshot() {
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations(temperature: 61.5), id: "s1", fetchedAt: 1_000))
        let first = feed(engine, viewport("alice", 10, 20, 4))
        #expect(first == #"{"type":"visible","client":"alice","version":1,"full":true,"day":"today","snapshot":"s1","source":"feed","fetchedAt":1000,"ageSeconds":0,"upsert":[{"id":"A1","name":"Say \"hi\"\\ here","latitude":10.5,"longitude":20.25,"temperature":61.5,"windSpeed":3.5,"windDirection":null,"precipitation":null,"icon":"rain"},{"id":"B2","name":"Plain","latitude":11,"longitude":21,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":0}],"remove":[]}"# + "\n")
        // A second client is sent the same stations: copied from the cache, the same bytes.
        let second = feed(engine, viewport("bob", 10, 20, 4))
        #expect(second == first.replacingOccurrences(of: #""client":"alice""#, with: #""client":"bob""#))
        // A1's temperature changes: the new snapshot's diff, and a new client's full set, carry it.
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations(temperature: 12.25), id: "s2", fetchedAt: 2_000))
        let third = feed(engine, viewport("carol", 10, 20, 4))
        #expect(third == #"{"type":"visible","client":"carol","version":1,"full":true,"day":"today","snapshot":"s2","source":"feed","fetchedAt":2000,"ageSeconds":0,"upsert":[{"id":"A1","name":"Say \"hi\"\\ here","latitude":10.5,"longitude":20.25,"temperature":12.25,"windSpeed":3.5,"windDirection":null,"precipitation":null,"icon":"rain"},{"id":"B2","name":"Plain","latitude":11,"longitude":21,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":0}],"remove":[]}"# + "\n")
        // alice pans away and back: A1 comes back with its new data.
        _ = feed(engine, viewport("alice", -40, -100, 1))
        let back = feed(engine, viewport("alice", 10, 20, 4))
        #expect(back.contains(#"{"id":"A1","name":"Say \"hi\"\\ here","latitude":10.5,"longitude":20.25,"temperature":12.25,"windSpeed":3.5,"windDirection":null,"precipitation":null,"icon":"rain"}"#))
        #expect(!back.contains("61.5"))
    }

    /// The same walk of pans by several clients gives the same bytes with the cache, without it,
    /// and with a bound so small that only some stations are kept.
    @Test func theCacheNeverChangesABytePanAfterPan() throws {
        let world = try TestSupport.world()
        func walk(cacheBytes: Int) -> (String, StationItemBytes?) {
            var options = FilterOptions()
            options.itemCacheBytes = cacheBytes
            options.staleAfter = 3_600
            let engine = FilterEngine(options: options, wallClock: { 1_795_000_000 })
            var stations = world
            for i in stride(from: 0, to: stations.count, by: 3) { stations[i].details = StationDetails(icon: .cloudy) }
            var out = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations, fetchedAt: 1_795_000_000 - 7_200))
            var random = TestSupport.Random(seed: 11)
            for step in 0..<120 {
                let client = "c\(step % 4)"
                out += feed(engine, viewport(client, random.uniform(-50...60), random.uniform(-180...180), random.uniform(2...30)))
            }
            return (out, engine.snapshot(for: .today)?.itemBytes)
        }
        let (uncached, none) = walk(cacheBytes: 0)
        let (cached, all) = walk(cacheBytes: StationItemBytes.defaultByteLimit)
        let (partly, some) = walk(cacheBytes: 4_000)
        #expect(uncached.contains(#""stale":true"#) && uncached.contains(#""icon":"cloudy""#))
        #expect(cached == uncached)
        #expect(partly == uncached)
        #expect(none?.stationsHeld == 0)
        #expect((all?.stationsHeld ?? 0) > 100)
        #expect((some?.bytesHeld ?? .max) <= 4_000 && (some?.stationsHeld ?? 0) > 0)
    }

    /// A kept station's quoted id (`writeQuotedID`, what the filter's removals copy) is
    /// `JSONWriter.string`'s bytes of its id, as an array's first element and after others, for
    /// ids that need escapes (a quote, an escaped backslash then a quote, a trailing backslash,
    /// tab, newline, DEL, a control byte), non-ASCII and long ones. A station not written yet, or
    /// not kept (a zero bound), writes nothing and says so.
    @Test func aKeptStationsQuotedIDIsTheWritersString() {
        let ids = ["K1D3", "a\"quote", "back\\\"slash", "ends\\", "tab\tand\nnewline", "del\u{7F}", "ctl\u{01}", "Košice-é",
                   String(repeating: "x", count: 300), "never written"]
        let stations = ids.map { Station(id: $0, name: "N \"\($0)\"", coordinate: Coordinate(latitude: 1, longitude: 2), temperature: 3) }
        let kept = StationItemBytes(count: stations.count)
        let unkept = StationItemBytes(count: stations.count, byteLimit: 0)
        let written = Array(stations.indices.dropLast())
        stations.withUnsafeBufferPointer { all in
            var items = JSONWriter()
            for i in written {
                items.objectStart(); kept.writeMembers(of: all, at: i, into: &items); items.objectEnd()
                items.objectStart(); unkept.writeMembers(of: all, at: i, into: &items); items.objectEnd()
            }
            #expect(!items.bytes.isEmpty)
        }
        var nothing = JSONWriter()
        nothing.arrayStart()
        let neverWritten = quotedID(kept, at: stations.count - 1, of: stations.count, into: &nothing)
        #expect(!neverWritten)
        for i in stations.indices {
            let notKept = quotedID(unkept, at: i, of: stations.count, into: &nothing)
            #expect(!notKept)
        }
        #expect(nothing.bytes == [UInt8(ascii: "[")])
        for round in 0..<3 {
            let order = Array(written.dropFirst(round)) + Array(written.prefix(round))
            var copied = JSONWriter()
            var reference = JSONWriter()
            copied.arrayStart()
            reference.arrayStart()
            for i in order {
                let found = quotedID(kept, at: i, of: stations.count, into: &copied)
                #expect(found, "\(ids[i])")
                reference.string(ids[i])
            }
            copied.arrayEnd()
            reference.arrayEnd()
            #expect(String(decoding: copied.bytes, as: UTF8.self) == String(decoding: reference.bytes, as: UTF8.self), "round \(round)")
        }
    }

    /// A run of removals (`writeQuotedIDs`) copies each kept station's id, in the order given, and
    /// hands every other key to `otherwise` in its place: a key with no station in the snapshot
    /// (-1), a cluster's (past the positions), and a station whose bytes are not kept.
    @Test func aRunOfIDsCopiesTheKeptAndHandsOnTheRest() {
        let ids = ["A\"1", "B\\2", "C3"]
        let stations = ids.map { Station(id: $0, name: "N", coordinate: Coordinate(latitude: 1, longitude: 2), temperature: 3) }
        let bytes = StationItemBytes(count: stations.count)
        stations.withUnsafeBufferPointer { all in
            var items = JSONWriter()
            for i in [0, 1] {  // C3 is never written
                items.objectStart(); bytes.writeMembers(of: all, at: i, into: &items); items.objectEnd()
            }
            #expect(!items.bytes.isEmpty)
        }
        // Key 0 is station 2 (C3), key 1 station 0 (A"1), key 4 station 1 (B\2); keys 2 and 3 are none.
        let positionByKey: [Int32] = [2, 0, -1, -1, 1]
        var written = JSONWriter()
        written.arrayStart()
        var handedOn: [UInt64] = []
        bytes.writeQuotedIDs(ofKeys: [0, 1, 3, 4, 1 << 63], positionByKey: positionByKey, into: &written) { key, out in
            handedOn.append(key)
            out.string("other \(key)")
        }
        written.arrayEnd()
        #expect(handedOn == [0, 3, 1 << 63])
        #expect(String(decoding: written.bytes, as: UTF8.self) == #"["other 0","A\"1","other 3","B\\2","other 9223372036854775808"]"#)
    }

    /// A client's removals are the same line whether the ids are copied from the kept item bytes
    /// or quoted from the interner (nothing kept), for ids that need escapes.
    @Test func removalsAreTheSameWithAndWithoutKeptItems() {
        func panAway(cacheBytes: Int) -> (String, Int) {
            var options = FilterOptions()
            options.itemCacheBytes = cacheBytes
            let engine = FilterEngine(options: options)
            let tricky = [Station(id: "q\"1\\", name: "Q", coordinate: Coordinate(latitude: 10.5, longitude: 20.5), temperature: 1),
                          Station(id: "é\t2", name: "E", coordinate: Coordinate(latitude: 11, longitude: 21), temperature: 2)]
            _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: tricky, id: "s1", fetchedAt: 1_000))
            _ = feed(engine, viewport("alice", 10, 20, 4))
            return (feed(engine, viewport("alice", -40, -100, 1)), engine.snapshot(for: .today)?.itemBytes.stationsHeld ?? -1)
        }
        let (copied, held) = panAway(cacheBytes: StationItemBytes.defaultByteLimit)
        let (quoted, none) = panAway(cacheBytes: 0)
        #expect(held == 2 && none == 0)
        #expect(copied.contains(#""remove":["q\"1\\","é\t2"]}"#))
        #expect(copied == quoted)
    }
}

/// One station's id through the filter's run of removals (`writeQuotedIDs`, positions equal to
/// keys): true when it was copied from kept bytes, false when it went to `otherwise` (nothing
/// written).
private func quotedID(_ bytes: StationItemBytes, at position: Int, of count: Int, into out: inout JSONWriter) -> Bool {
    var copied = true
    bytes.writeQuotedIDs(ofKeys: [UInt64(position)], positionByKey: (0..<Int32(count)).map { $0 }, into: &out) { _, _ in copied = false }
    return copied
}
