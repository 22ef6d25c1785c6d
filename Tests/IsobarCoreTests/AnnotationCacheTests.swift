import Foundation
import Testing
@testable import IsobarCore

/// The formatter's cache of annotations by station (`AnnotationCache`): a station seen again with
/// the same bytes is copied, one whose data changed is formatted again, the answer is always what
/// the uncached formatter writes, and the cache stays within its bounds.
@Suite struct AnnotationCacheTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A filter-style `visible` line of `stations` (`extra`: presentation members).
    func visible(_ stations: [Station], version: Int, extra: String = "") -> [UInt8] {
        var writer = JSONWriter()
        Visible(client: "alice", version: version, full: false, day: .today,
                upsert: stations.map { .station($0, stale: false) }, remove: ["GONE"]).write(to: &writer)
        var line = text(Array(writer.bytes.dropLast()))
        if !extra.isEmpty { line = line.replacingOccurrences(of: #","upsert":"#, with: extra + #","upsert":"#) }
        return Array(line.utf8)
    }

    func station(_ id: String, temperature: Double) -> Station {
        Station(id: id, name: "PLATTE", coordinate: Coordinate(latitude: 43.40332, longitude: -98.82952), temperature: temperature,
                windSpeed: 6.90468887898, windDirection: 270, precipitation: 0)
    }

    func format(_ engine: FormatEngine, _ line: [UInt8]) -> String {
        var out = JSONWriter()
        line.withUnsafeBytes { engine.handle(line: $0, into: &out) }
        return text(out.bytes)
    }

    /// The same line through an engine without a cache (and the general path).
    func uncached(_ line: [UInt8]) -> String {
        var engine = FormatEngine()
        engine.cache = nil
        engine.onePass = false
        return format(engine, line)
    }

    @Test func aStationWhoseDataChangedIsFormattedAgain() throws {
        let engine = FormatEngine()
        let first = visible([station("K1D3", temperature: 46.4)], version: 1)
        let changed = visible([station("K1D3", temperature: 50.2)], version: 2)
        #expect(format(engine, first) == uncached(first))
        #expect(engine.cache?.counts.stations == 1)
        let answer = format(engine, changed)
        #expect(answer == #"{"type":"annotations","client":"alice","version":2,"full":false,"day":"today","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","snapshot":null,"source":null,"fetchedAt":null,"ageSeconds":null,"upsert":[{"id":"K1D3","coordinate":{"latitude":43.40332,"longitude":-98.82952},"title":"50°","subtitle":"PLATTE","value":50.2}],"remove":["GONE"]}"# + "\n")
        #expect(answer == uncached(changed))
        // Back to the first data: formatted again too (the entry now holds the changed bytes).
        #expect(format(engine, first) == uncached(first))
        #expect(engine.cache?.counts.stations == 1)
    }

    @Test func aRepeatedStationIsCopiedPerPresentation() throws {
        let engine = FormatEngine()
        let stations = [station("A1", temperature: 46.4), station("B2", temperature: -3.05)]
        let line = visible(stations, version: 1)
        let wind = visible(stations, version: 2, extra: #","field":"wind","units":"metric","locale":"sk""#)
        for _ in 0..<2 {
            #expect(format(engine, line) == uncached(line))
            #expect(format(engine, wind) == uncached(wind))
        }
        let counts = try #require(engine.cache?.counts)
        #expect(counts.stations == 2)
        #expect(counts.resets == 0)
        // Two presentations of each station held: the wind one is not the temperature one.
        #expect(format(engine, wind).contains(#""title":"11 km/h Z →""#))
    }

    @Test func theCacheStaysWithinItsStationBound() throws {
        var engine = FormatEngine()
        engine.cache = AnnotationCache(maxStations: 2)
        let lines = (0..<5).map { visible([station("S\($0)", temperature: Double($0))], version: $0 + 1) }
        for line in lines + lines { #expect(format(engine, line) == uncached(line)) }
        let counts = try #require(engine.cache?.counts)
        #expect(counts.stations <= 2)
        #expect(counts.resets > 0)
    }

    @Test func theCacheStaysWithinItsByteBound() throws {
        var engine = FormatEngine()
        engine.cache = AnnotationCache(maxBytes: 600)
        let lines = (0..<5).map { visible([station("S\($0)", temperature: Double($0))], version: $0 + 1) }
        for line in lines + lines { #expect(format(engine, line) == uncached(line)) }
        let counts = try #require(engine.cache?.counts)
        #expect(counts.bytes <= 600)
        #expect(counts.resets > 0)
    }

    /// The filter's own lines (every field, unit, locale, stale marks, clusters) through one
    /// engine whose cache carries over from line to line: every answer as the uncached path's.
    @Test func theFiltersLinesThroughOneCachedEngine() throws {
        let lines = try FormatOnePassTests().filterLines(seed: 11, count: 120)
        let engine = FormatEngine()
        for _ in 0..<2 {
            for line in lines { #expect(format(engine, line) == uncached(line), "outputs differ for \(text(line).prefix(200))") }
        }
        #expect((engine.cache?.counts.stations ?? 0) > 0)
    }

    /// The byte count of `upsert`'s only item in a line (input or answer).
    func itemBytes(_ line: String) -> Int {
        let afterUpsert = line.components(separatedBy: #""upsert":["#)
        guard afterUpsert.count == 2 else { return -1 }
        return afterUpsert[1].components(separatedBy: #"],"remove""#)[0].utf8.count
    }

    /// The cache's byte count is exactly what it holds (each station's input item and the
    /// annotations stored for it) as a station gains a presentation, is copied, and changes its data.
    /// The read-ahead before a filter line's items (`FormatEngine.nextItemIDHash`, which feeds
    /// `AnnotationCache.State.warm`) finds each `upsert` item with a plain id, in order, and nothing
    /// else: not a coordinate's object, not an escaped id, not `{"id":"` inside a name.
    @Test func theReadAheadFindsEachPlainItemIDInOrder() throws {
        let seed: UInt64 = 7
        func found(_ line: [UInt8]) -> [UInt64] {
            var hashes: [UInt64] = []
            line.withUnsafeBytes { bytes in
                var at = 0
                while let hash = FormatEngine.nextItemIDHash(bytes, from: &at, seed: seed) { hashes.append(hash) }
            }
            return hashes
        }
        func hash(_ id: String) -> UInt64 { Array(id.utf8).withUnsafeBytes { FNV1a.tableHash(bytes: $0, seed: seed) } }
        var named = station("B", temperature: 3)
        named.name = #"{"id":"X"}"#
        let line = visible([station("A", temperature: 1), named, station(#"C"D"#, temperature: 5), station("E", temperature: 7)], version: 1)
        #expect(found(line) == [hash("A"), hash("B"), hash("E")])
        // The filter's own lines (stations and clusters): every upsert id, as a parser reads them.
        var items = 0
        for line in try FormatOnePassTests().filterLines(seed: 17, count: 40) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let ids = try #require(object["upsert"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            #expect(found(line) == ids.map(hash))
            items += ids.count
        }
        #expect(items > 1_000)
    }

    /// `ItemReadAhead` gives each found item's id hash at the item's start, in order, across
    /// batches (151 items: three batches of 64 at most), nil at an escaped id and at a position that
    /// is no item's start, and the items after those still get theirs.
    @Test func theReadAheadGivesEachItemsHashAtItsStartAcrossBatches() {
        let seed: UInt64 = 9
        func hash(_ id: String) -> UInt64 { Array(id.utf8).withUnsafeBytes { FNV1a.tableHash(bytes: $0, seed: seed) } }
        var stations = (0..<150).map { station("S\($0)", temperature: Double($0)) }
        stations.insert(station(#"E"X"#, temperature: 2), at: 70)
        let line = visible(stations, version: 1)
        let prefix = Array(#"{"id":""#.utf8)
        let starts = line.indices.filter { line[$0...].starts(with: prefix) }
        #expect(starts.count == 151)
        var state = AnnotationCache.State(seed: seed)
        var ahead = ItemReadAhead()
        var got: [UInt64?] = []
        var between: [UInt64?] = []
        line.withUnsafeBytes { bytes in
            withUnsafeMutablePointer(to: &state) { state in
                for (n, start) in starts.enumerated() {
                    got.append(ahead.hash(at: start, in: bytes, cache: state))
                    if n == 10 || n == 100 { between.append(ahead.hash(at: start + 1, in: bytes, cache: state)) }
                }
            }
        }
        var expected: [UInt64?] = (0..<150).map { hash("S\($0)") }
        expected.insert(nil, at: 70)
        #expect(got == expected)
        #expect(between == [nil, nil])
    }

    @Test func theByteCountIsWhatItHolds() throws {
        let engine = FormatEngine()
        let first = visible([station("K1D3", temperature: 46.4)], version: 1)
        let wind = visible([station("K1D3", temperature: 46.4)], version: 2, extra: #","field":"wind""#)
        let changed = visible([station("K1D3", temperature: 50.2)], version: 3)
        let firstAnswer = format(engine, first)
        #expect(engine.cache?.counts.bytes == itemBytes(text(first)) + itemBytes(firstAnswer))
        let windAnswer = format(engine, wind)
        #expect(engine.cache?.counts.bytes == itemBytes(text(first)) + itemBytes(firstAnswer) + itemBytes(windAnswer))
        #expect(format(engine, first) == firstAnswer)  // copied: nothing added
        #expect(engine.cache?.counts.bytes == itemBytes(text(first)) + itemBytes(firstAnswer) + itemBytes(windAnswer))
        let changedAnswer = format(engine, changed)
        #expect(changedAnswer == uncached(changed))
        #expect(engine.cache?.counts.bytes == itemBytes(text(changed)) + itemBytes(changedAnswer))
        let counts = try #require(engine.cache?.counts)
        #expect(counts.stations == 1)
        #expect(counts.resets == 0)
    }

    /// The one-pass reader's two ways (the filter's layout read by position, any other line parsed)
    /// share one cache through copies of one engine: entries stored by either way are copied by
    /// the other, in every presentation, and every answer is the uncached general path's; the
    /// parsed way takes every line, cached items included (it skips them without reading).
    @Test func bothOnePassWaysShareTheCacheWithTheSameBytes() throws {
        let lines = try FormatOnePassTests().filterLines(seed: 13, count: 60)
        let byPosition = FormatEngine()
        var parsed = byPosition  // the same cache
        parsed.filterLayout = false
        for round in 0..<3 {
            for (n, line) in lines.enumerated() {
                let engine = (n + round) % 2 == 0 ? byPosition : parsed
                var out = JSONWriter()
                let taken = line.withUnsafeBytes { engine.annotationsInOnePass($0, into: &out) }
                #expect(taken, "round \(round): not taken: \(text(line).prefix(200))")
                #expect(text(out.bytes) == uncached(line), "round \(round): outputs differ for \(text(line).prefix(200))")
            }
        }
        #expect((byPosition.cache?.counts.stations ?? 0) > 0)
    }

    /// `State.equal` compares the first `count` bytes of a store (its input: outputs follow) with
    /// an item's bytes: by length, then by content; two empty buffers are equal whatever their
    /// addresses (an empty array may have none); a prefix longer than the store is no match.
    @Test func storedInputEqualsBytesByLengthThenContent() {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(AnnotationCache.State.equal([], prefix: 0, none))
        [UInt8]().withUnsafeBytes { empty in #expect(AnnotationCache.State.equal([], prefix: 0, empty)) }
        let stored: [UInt8] = Array(#"{"id":"K1"}"#.utf8)
        let count = stored.count
        stored.withUnsafeBytes { same in #expect(AnnotationCache.State.equal(Array(stored), prefix: count, same)) }
        Array(#"{"id":"K2"}"#.utf8).withUnsafeBytes { other in #expect(!AnnotationCache.State.equal(stored, prefix: count, other)) }
        Array(#"{"id":"K1"} "#.utf8).withUnsafeBytes { longer in #expect(!AnnotationCache.State.equal(stored, prefix: count, longer)) }
        #expect(!AnnotationCache.State.equal(stored, prefix: count, none))
        let withOutput = stored + Array("a1".utf8)
        stored.withUnsafeBytes { same in #expect(AnnotationCache.State.equal(withOutput, prefix: count, same)) }
        Array(#"{"id":"K1"}a"#.utf8).withUnsafeBytes { longer in
            #expect(!AnnotationCache.State.equal(withOutput, prefix: count, longer))
            #expect(AnnotationCache.State.equal(withOutput, prefix: count + 1, longer))
            #expect(!AnnotationCache.State.equal(stored, prefix: count + 1, longer))  // past the store's end
        }
    }

    /// A table holding one station (id hash 7) of `input`, with `store` and the outputs it holds.
    struct OneStation {
        var state = AnnotationCache.State(seed: 1)
        let maxBytes: Int

        mutating func store(_ input: String, _ presentation: Int, _ output: String) {
            Array(input.utf8).withUnsafeBytes { item in
                Array(output.utf8).withUnsafeBytes { written in
                    state.store(7, input: item, presentation: presentation, output: written, maxStations: 10, maxBytes: maxBytes)
                }
            }
        }

        /// The entry's store as text, and its outputs by presentation.
        var held: (store: String, outputs: [Int: String])? {
            guard let index = state.find(7) else { return nil }
            let entry = state.entries[index]
            var outputs: [Int: String] = [:]
            for slot in 0..<entry.outputCount {
                outputs[entry.outputs[slot].presentation] = entry.withOutput(slot) { String(decoding: $0, as: UTF8.self) }
            }
            return (String(decoding: entry.store, as: UTF8.self), outputs)
        }

        func matches(_ input: String) -> Bool {
            Array(input.utf8).withUnsafeBytes { state.match(7, $0, at: 0) != nil }
        }
    }

    /// An entry keeps its input and its outputs in one store, input first, outputs oldest first: a
    /// presentation seen again is replaced, a fifth evicts the oldest, changed input starts over;
    /// the byte count is the store's length throughout.
    @Test func anEntryStoresItsInputAndLastFourPresentations() {
        let item = #"{"id":"K1","latitude":1,"longitude":2}"#
        var table = OneStation(maxBytes: 1 << 20)
        table.store(item, 1, "a1")
        #expect(table.held?.store == item + "a1")
        #expect(table.held?.outputs == [1: "a1"])
        #expect(table.state.bytes == item.utf8.count + 2)
        table.store(item, 2, "bb2")
        table.store(item, 3, "c3")
        table.store(item, 4, "d4")
        #expect(table.held?.store == item + "a1bb2c3d4")
        table.store(item, 2, "B2")
        #expect(table.held?.store == item + "a1c3d4B2")
        #expect(table.held?.outputs == [1: "a1", 2: "B2", 3: "c3", 4: "d4"])
        table.store(item, 5, "e5")
        #expect(table.held?.store == item + "c3d4B2e5")
        #expect(table.held?.outputs == [2: "B2", 3: "c3", 4: "d4", 5: "e5"])
        #expect(table.state.bytes == item.utf8.count + 8)
        #expect(table.matches(item))
        #expect(!table.matches(#"{"id":"K1","latitude":1,"longitude":3}"#))
        // A match is of the item at a place in a line, so what follows it does not count; a line that
        // ends before the item does is no match.
        #expect(table.matches(#"{"id":"K1","latitude":1,"longitude":2},{"id":"K2"}"#))
        #expect(!table.matches(#"{"id":"K1","latitude":1,"longitude":2"#))
        let moved = #"{"id":"K1","latitude":1,"longitude":3}"#
        table.store(moved, 3, "x")
        #expect(table.held?.store == moved + "x")
        #expect(table.held?.outputs == [3: "x"])
        #expect(table.state.bytes == moved.utf8.count + 1)
        #expect(table.state.entries.count == 1)
        #expect(table.state.resets == 0)
    }

    /// A station's outputs past the byte bound empty the cache, which starts again from the item and
    /// the newest output alone: the bytes held never pass the bound.
    @Test func anEntryPastTheByteBoundKeepsOnlyItsNewestOutput() {
        let item = #"{"id":"K1","latitude":1,"longitude":2}"#
        var table = OneStation(maxBytes: item.utf8.count + 6)
        table.store(item, 1, "a1")
        table.store(item, 2, "b2")
        table.store(item, 3, "c3")
        #expect(table.state.bytes == item.utf8.count + 6)
        #expect(table.state.resets == 0)
        table.store(item, 4, "d4")
        #expect(table.state.resets == 1)
        #expect(table.held?.store == item + "d4")
        #expect(table.held?.outputs == [4: "d4"])
        #expect(table.state.bytes == item.utf8.count + 2)
        #expect(table.state.bytes <= table.maxBytes)
        table.store(item, 5, "too long")  // item and output together past the bound: not stored
        #expect(table.held?.outputs == [4: "d4"])
        #expect(table.state.bytes == item.utf8.count + 2)
    }

    /// The outputs `Entry.add` should hold, oldest first: the one in the same presentation
    /// replaced, else the oldest dropped when four are held; the new one last.
    static func modelAdd(_ model: inout [(presentation: Int, output: String)], _ presentation: Int, _ output: String) {
        if let held = model.firstIndex(where: { $0.presentation == presentation }) {
            model.remove(at: held)
        } else if model.count >= AnnotationCache.maxOutputsPerStation {
            model.removeFirst()
        }
        model.append((presentation, output))
    }

    /// The `n`th output of a long run: six presentations in a shuffled order, 1 to 9 bytes.
    static func step(_ n: Int) -> (presentation: Int, output: String) {
        let letter = Character(Unicode.Scalar(UInt8(97 + n % 26)))
        return ((n * 7 + n / 3) % 6 + 1, String(repeating: letter, count: (n * 5) % 9 + 1))
    }

    /// The base address of the station's store (to tell an append in place from a new array).
    func storeAddress(_ table: OneStation) -> UnsafeRawPointer? {
        guard let index = table.state.find(7) else { return nil }
        return table.state.entries[index].store.withUnsafeBytes { $0.baseAddress }
    }

    /// A presentation new to an entry is appended to its store: with room in the array, the store
    /// is not written anew (same address), and it holds the input and then each output exactly, in
    /// order.
    @Test func aNewPresentationIsAppendedWithoutRewritingTheStore() throws {
        let item = #"{"id":"K1","latitude":1,"longitude":2}"#
        var table = OneStation(maxBytes: 1 << 20)
        table.store(item, 1, "a1")
        let index = try #require(table.state.find(7))
        table.state.entries[index].store.reserveCapacity(256)
        let address = try #require(storeAddress(table))
        table.store(item, 2, "bb2")
        table.store(item, 3, "ccc3")
        #expect(storeAddress(table) == address)
        #expect(table.held?.store == item + "a1bb2ccc3")
        #expect(table.held?.outputs == [1: "a1", 2: "bb2", 3: "ccc3"])
        #expect(table.state.bytes == item.utf8.count + 9)
        #expect(table.state.entries[index].inputCount == item.utf8.count)
    }

    /// A fifth presentation evicts the oldest: the store is compacted where it lies (same address,
    /// no new array) and holds the input and the newest four, oldest first, each exactly.
    @Test func aFifthPresentationCompactsTheStoreAndKeepsTheNewestFour() throws {
        let item = #"{"id":"K1","latitude":1,"longitude":2}"#
        var table = OneStation(maxBytes: 1 << 20)
        for (n, output) in ["a1", "bb2", "c3", "d4"].enumerated() { table.store(item, n + 1, output) }
        let address = try #require(storeAddress(table))
        table.store(item, 5, "e5")
        #expect(storeAddress(table) == address)
        #expect(table.held?.store == item + "bb2c3d4e5")
        #expect(table.held?.outputs == [2: "bb2", 3: "c3", 4: "d4", 5: "e5"])
        table.store(item, 6, "f6")
        #expect(storeAddress(table) == address)
        #expect(table.held?.store == item + "c3d4e5f6")
        #expect(table.held?.outputs == [3: "c3", 4: "d4", 5: "e5", 6: "f6"])
        #expect(table.state.bytes == item.utf8.count + 8)
        #expect(table.matches(item))
    }

    /// A long run of outputs in six presentations, of varied lengths, against a list model of
    /// what an entry holds (`modelAdd`): after every store the entry's store is the input and the
    /// model's outputs in order, each output read back exactly, and the byte count its length.
    @Test func anEntryHoldsWhatAListModelHolds() {
        let item = #"{"id":"K1","latitude":1,"longitude":2}"#
        var table = OneStation(maxBytes: 1 << 20)
        var model: [(presentation: Int, output: String)] = []
        for n in 0..<200 {
            let (presentation, output) = Self.step(n)
            table.store(item, presentation, output)
            Self.modelAdd(&model, presentation, output)
            #expect(table.held?.store == item + model.map(\.output).joined(), "after output \(n)")
            #expect(table.held?.outputs == Dictionary(uniqueKeysWithValues: model.map { ($0.presentation, $0.output) }), "after output \(n)")
            #expect(table.state.bytes == item.utf8.count + model.reduce(0) { $0 + $1.output.utf8.count })
        }
        #expect(table.state.resets == 0)
    }

    /// Under a tight byte bound, a station gaining and evicting presentations never takes the
    /// cache past the bound: the count is what the stores hold, the newest output is always held
    /// exactly, and the bound resets the cache now and then.
    @Test func theByteBoundHoldsAsAStationGainsAndEvictsPresentations() {
        let item = #"{"id":"K1","latitude":1,"longitude":2}"#
        let bound = item.utf8.count + 12
        var table = OneStation(maxBytes: bound)
        for n in 0..<200 {
            let (presentation, output) = Self.step(n)
            table.store(item, presentation, output)
            #expect(table.state.bytes <= bound, "after output \(n)")
            #expect(table.state.bytes == table.state.entries.reduce(0) { $0 + $1.store.count })
            #expect(table.held?.outputs[presentation] == output, "after output \(n)")
            #expect(table.held?.store.hasPrefix(item) == true)
        }
        #expect(table.state.resets > 0)
    }
}
