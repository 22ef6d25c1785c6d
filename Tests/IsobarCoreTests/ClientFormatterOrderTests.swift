import Testing
@testable import IsobarCore

/// The one-pass item reader's shortcut for the formatter's order (`AnnotationItemScan.item` reads
/// `id`, `coordinate`, `title`, `subtitle` and `value` comparing each key with the one spelling
/// expected there), its one-word read of short strings (`AnnotationItemScan.string`), and the
/// table's upsert by an id's bytes that makes a new item whole (`AnnotationTable.upsert(id:update:make:)`):
/// exact results, and the general reader's outcome and set wherever the shortcut stops early.
@Suite struct ClientFormatterOrderTests {
    /// The item `AnnotationItemScan.item` reads at the start of `text`, and where it leaves the
    /// scanner; nil when it declines.
    func scan(_ text: String, keepsDetail: Bool = false) -> (item: AnnotationSet.Item, end: Int)? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { line in
            var scanner = JSONScanner(line)
            guard let scanned = AnnotationItemScan.item(&scanner, keepsDetail: keepsDetail) else { return nil }
            return (scanned.item(in: line), scanner.index)
        }
    }

    /// Applies a full set holding `item` to sets of both readers (with and without detail): the
    /// same outcome or error, and the same set.
    func expectGeneralReadersSet(_ item: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let line = Array(#"{"type":"annotations","version":1,"full":true,"upsert":[\#(item)],"remove":[]}"#.utf8)
        for keepsDetail in [false, true] {
            var one = AnnotationSet(keepsDetail: keepsDetail), general = AnnotationSet(keepsDetail: keepsDetail)
            TestSupport.applyBoth(line, &one, &general, sourceLocation: sourceLocation)
        }
    }

    /// Items in the formatter's order and spelling (a station, a cluster, a stale station, long
    /// and escaped ids, a line that ends with the item), and the same members where the shortcut
    /// hands over to the member loop: exactly the item written, the scanner just past it.
    @Test func formatterOrderItemsAreReadExactly() throws {
        let padding = #",{"id":"padding-padding","coordinate":{"latitude":0,"longitude":0}}]"#
        let station = #"{"id":"KDKR","coordinate":{"latitude":30.5571,"longitude":-96.11408},"title":"65°","subtitle":"Crockett, TX","value":64.6}"#
        let read = try #require(scan(station + padding))
        #expect(read.item == AnnotationSet.Item(id: "KDKR", coordinate: Coordinate(latitude: 30.5571, longitude: -96.11408), title: "65°", count: 1))
        #expect(read.end == station.utf8.count)
        let detailed = try #require(scan(station + padding, keepsDetail: true))
        #expect(detailed.item == AnnotationSet.Item(id: "KDKR", coordinate: Coordinate(latitude: 30.5571, longitude: -96.11408), title: "65°",
                                                    count: 1, subtitle: "Crockett, TX"))
        // A cluster: the shortcut stops at `cluster`, the loop reads the rest.
        let cluster = #"{"id":"c:3:10:20","coordinate":{"latitude":1,"longitude":-2.5},"title":"61°","subtitle":"12 stations","cluster":true,"count":12,"value":60.5}"#
        #expect(try #require(scan(cluster + padding, keepsDetail: true)).item
            == AnnotationSet.Item(id: "c:3:10:20", coordinate: Coordinate(latitude: 1, longitude: -2.5), title: "61°", count: 12,
                                  subtitle: "12 stations", cluster: true))
        #expect(try #require(scan(cluster + padding)).end == cluster.utf8.count)
        // A stale station (after `value`), a wind station (no `value`), an id of more than eight
        // bytes and an escaped one (both read by `scanString`), a null title (the loop reads it).
        let cases: [(String, AnnotationSet.Item)] = [
            (#"{"id":"KSTL","coordinate":{"latitude":1,"longitude":2},"title":"5°","subtitle":"x","value":5,"stale":true}"#,
             AnnotationSet.Item(id: "KSTL", coordinate: Coordinate(latitude: 1, longitude: 2), title: "5°", count: 1, stale: true)),
            (#"{"id":"KW","coordinate":{"latitude":1,"longitude":2},"title":"7 mph","subtitle":"x","wind":{"speed":7,"rotation":90}}"#,
             AnnotationSet.Item(id: "KW", coordinate: Coordinate(latitude: 1, longitude: 2), title: "7 mph", count: 1)),
            (#"{"id":"KCXO-12345","coordinate":{"latitude":-3,"longitude":4},"title":"","subtitle":"","value":null}"#,
             AnnotationSet.Item(id: "KCXO-12345", coordinate: Coordinate(latitude: -3, longitude: 4), title: "", count: 1)),
            (#"{"id":"K\u0031","coordinate":{"latitude":1,"longitude":2},"title":"a\"b","subtitle":"x","value":1}"#,
             AnnotationSet.Item(id: "K1", coordinate: Coordinate(latitude: 1, longitude: 2), title: #"a"b"#, count: 1)),
            (#"{"id":"K2","coordinate":{"latitude":1,"longitude":2},"title":null,"subtitle":"x","value":1}"#,
             AnnotationSet.Item(id: "K2", coordinate: Coordinate(latitude: 1, longitude: 2), title: "", count: 1)),
            (#"{"id":"K3","coordinate":{ "latitude":1,"longitude":2},"title":"t","subtitle":"x","value":1}"#,
             AnnotationSet.Item(id: "K3", coordinate: Coordinate(latitude: 1, longitude: 2), title: "t", count: 1)),
        ]
        for (item, expected) in cases {
            for tail in [padding, ""] {
                let read = try #require(scan(item + tail), "\(item + tail)")
                #expect(read.item == expected, "\(item + tail)")
                #expect(read.end == item.utf8.count, "\(item + tail)")
            }
            expectGeneralReadersSet(item)
        }
        // Without the padding (the line ends with the item) the loop reads what the shortcut would.
        #expect(try #require(scan(station)).item == read.item)
    }

    /// Items the general reader refuses, where the shortcut has read some members first: a key
    /// repeated after the members it read, an empty id, a raw control character in a string, a
    /// number or coordinate out of the grammar. The reader declines each, and the set applies the
    /// general reader's error.
    @Test(arguments: [
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":1,"value":2}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":1,"id":"K2"}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":1,"subtitle":"s"}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","title":"u","subtitle":"s","value":1}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"coordinate":{"latitude":1,"longitude":2},"title":"t"}"#,
        #"{"id":"","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":1}"#,
        "{\"id\":\"K\u{1}\",\"coordinate\":{\"latitude\":1,\"longitude\":2},\"title\":\"t\",\"subtitle\":\"s\",\"value\":1}",
        "{\"id\":\"K1\",\"coordinate\":{\"latitude\":1,\"longitude\":2},\"title\":\"t\u{9}\",\"subtitle\":\"s\",\"value\":1}",
        "{\"id\":\"K1\",\"coordinate\":{\"latitude\":1,\"longitude\":2},\"title\":\"t\",\"subtitle\":\"s\u{1F}\",\"value\":1}",
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":01}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":1.}"#,
        #"{"id":"K1","coordinate":{"latitude":91,"longitude":2},"title":"t","subtitle":"s","value":1}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s","value":1,}"#,
        #"{"id":"K1","coordinate":{"latitude":1,"longitude":2},"title":"t","subtitle":"s" "value":1}"#,
    ])
    func refusedItemsAreDeclined(item: String) {
        #expect(scan(item + #",{"id":"padding-padding"}]"#) == nil)
        #expect(scan(item) == nil)
        expectGeneralReadersSet(item)
    }

    /// `AnnotationItemScan.string` against the scanner's `scanString` on seeded strings of every
    /// short length made of plain ASCII, quotes, backslash escapes, control characters, valid and
    /// invalid UTF-8, with the line ending at or after the string: the same text (range and escape
    /// mark) or the same refusal, and the scanner left at the same place.
    @Test func shortStringsAreReadAsTheScannerReadsThem() {
        let pieces: [[UInt8]] = [[0x61], [0x5A], [0x20], [0x7E], [0x22], [0x5C, 0x22], [0x5C, 0x6E], [0x5C], [0x01], [0x1F],
                                 [0xC3, 0xA9], [0xE2, 0x86, 0x92], [0xFF], [0xC3], [0x80]]
        var random = TestSupport.Random(seed: 131)
        var oneWord = 0, refused = 0
        for _ in 0..<30_000 {
            var line: [UInt8] = [0x22]
            for _ in 0..<Int(random.next() % 11) { line += pieces[Int(random.next() % UInt64(pieces.count))] }
            if random.next() % 8 != 0 { line.append(0x22) }
            line += Array(repeating: 0x61, count: Int(random.next() % 10))
            line.withUnsafeBytes { raw in
                var fast = JSONScanner(raw)
                var general = JSONScanner(raw)
                let read = AnnotationItemScan.string(&fast)
                guard let escaped = try? general.scanString() else {
                    #expect(read == nil, "\(line)")
                    refused += 1
                    return
                }
                #expect(read == ScannedItem.Text(range: 1..<(general.index - 1), escaped: escaped), "\(line)")
                #expect(fast.index == general.index, "\(line)")
                if !escaped && general.index <= 9 && !line[1..<(general.index - 1)].contains(where: { $0 >= 0x80 }) { oneWord += 1 }
            }
        }
        // Both kinds are common: strings the one word takes, and strings the scanner refuses.
        #expect(oneWord > 3_000 && refused > 3_000, "one word \(oneWord), refused \(refused)")
    }

    /// The upsert by an id's bytes: a held id is updated in place (its item keeps its id and
    /// place), a new one is made whole by `make` with the id made from the bytes, once per new id.
    @Test func upsertByBytesUpdatesHeldItemsAndMakesNewOnes() {
        var table = AnnotationTable()
        var made: [String] = []
        var updated = 0
        for (n, id) in ["K1", "K2", "K1", "Žilina", "K2", "a-much-longer-id-than-fifteen-bytes"].enumerated() {
            var bytes = id
            bytes.withUTF8 { raw in
                table.upsert(id: UnsafeRawBufferPointer(raw), update: { item in
                    item.count = n
                    updated += 1
                }, make: { id in
                    made.append(id)
                    return AnnotationSet.Item(id: id, coordinate: Coordinate(latitude: 1, longitude: 2), title: "t\(n)", count: n)
                })
            }
        }
        #expect(made == ["K1", "K2", "Žilina", "a-much-longer-id-than-fifteen-bytes"])
        #expect(updated == 2)
        #expect(table.items.map(\.id) == ["K1", "K2", "Žilina", "a-much-longer-id-than-fifteen-bytes"])
        #expect(table.items.map(\.count) == [2, 4, 3, 5])
        #expect(table.items.map(\.title) == ["t0", "t1", "t3", "t5"])
        #expect(table.item("Žilina")?.count == 3 && table.item("K3") == nil)
    }
}
