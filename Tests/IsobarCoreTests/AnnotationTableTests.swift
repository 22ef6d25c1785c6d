import Testing
@testable import IsobarCore

/// `AnnotationTable` (the client set's items by id) against a plain dictionary, over long seeded
/// runs of upserts, removals (by bytes and by string, present and absent) and clears, with ids
/// from a small alphabet so probe chains are long and removals shift them back.
@Suite struct AnnotationTableTests {
    static func item(_ id: String, _ n: Int) -> AnnotationSet.Item {
        AnnotationSet.Item(id: id, coordinate: Coordinate(latitude: Double(n % 90), longitude: Double(n % 180)), title: "\(n)°", count: 1 + n % 3, stale: n % 2 == 0)
    }

    @Test(arguments: [1, 2, 3])
    func agreesWithADictionary(seed: UInt64) {
        var random = TestSupport.Random(seed: seed)
        var table = AnnotationTable()
        var reference: [String: AnnotationSet.Item] = [:]
        // Short ids and long ones (heap strings), and one beyond ASCII.
        let ids = (0..<600).map { n in n % 5 == 0 ? "cluster:\(n % 7):\(n):\(n * 3)" : n == 1 ? "Žilina" : "s\(n)" }
        var disagreements: [String] = []
        for step in 0..<40_000 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            switch random.next() % 100 {
            case 0..<55:
                let item = Self.item(id, step)
                table.upsert(item)
                reference[id] = item
            case 55..<75:
                var bytes = id
                bytes.withUTF8 { table.remove(bytes: UnsafeRawBufferPointer($0)) }
                reference[id] = nil
            case 75..<99:
                table.remove(id)
                reference[id] = nil
            default:
                table.removeAll()
                reference = [:]
            }
            if step % 97 == 0 || step > 39_900 {
                if table.count != reference.count { disagreements.append("step \(step): count \(table.count) != \(reference.count)") }
                for id in ids where table.item(id) != reference[id] { disagreements.append("step \(step): \(id)") }
                if Set(table.items.map(\.id)) != Set(reference.keys) { disagreements.append("step \(step): ids differ") }
            }
            if disagreements.count > 5 { break }
        }
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    /// A removal whose id arrives with JSON escapes removes the item with the unescaped id.
    @Test func escapedRemovalsFindTheirItem() throws {
        var set = AnnotationSet()
        let full = #"{"type":"annotations","client":"c","version":1,"full":true,"upsert":[{"id":"a\"b","coordinate":{"latitude":1,"longitude":2}},{"id":"c/d","coordinate":{"latitude":1,"longitude":2}},{"id":"e","coordinate":{"latitude":1,"longitude":2}}],"remove":[]}"#
        #expect(try set.apply(storage: Array(full.utf8)) == .applied)
        #expect(Set(set.items.keys) == [#"a"b"#, "c/d", "e"])
        let diff = #"{"type":"annotations","client":"c","version":2,"full":false,"upsert":[],"remove":["a\"b","c\/d","absent"]}"#
        #expect(try set.apply(storage: Array(diff.utf8)) == .applied)
        #expect(Set(set.items.keys) == ["e"])
        #expect(set.count == 1 && set.item("e")?.coordinate == Coordinate(latitude: 1, longitude: 2))
    }

    /// The `remove` ids are read where they lie in the line (no array of elements made first):
    /// only its strings remove, whatever whitespace and other values sit between them, the last
    /// one too, and a `remove` that is not an array removes nothing.
    @Test func removalsReadInPlaceTakeOnlyTheArraysStrings() throws {
        var set = AnnotationSet()
        let items = ["a", "b", "c", "d", "e", "1"].map { #"{"id":"\#($0)","coordinate":{"latitude":1,"longitude":2}}"# }
        let full = #"{"type":"annotations","client":"c","version":1,"full":true,"upsert":[\#(items.joined(separator: ","))],"remove":[]}"#
        #expect(try set.apply(storage: Array(full.utf8)) == .applied)
        let diff = #"{"type":"annotations","client":"c","version":2,"full":false,"upsert":[],"remove":[ 1 , "a",null,["b"],{"id":"c"} ,true, "d" ]}"#
        #expect(try set.apply(storage: Array(diff.utf8)) == .applied)
        #expect(Set(set.items.keys) == ["b", "c", "e", "1"])
        let notArray = #"{"type":"annotations","client":"c","version":3,"full":false,"upsert":[],"remove":"e"}"#
        #expect(try set.apply(storage: Array(notArray.utf8)) == .applied)
        #expect(Set(set.items.keys) == ["b", "c", "e", "1"])
    }

    /// `day`, `field` and `source` repeated as they are keep the set's values; any other
    /// spelling (a longer or shorter source, an escape, null, absent, a bad day) reads as before.
    @Test func repeatedDayFieldAndSourceAreKeptAndChangesRead() throws {
        var set = AnnotationSet()
        func apply(_ version: Int, _ members: String) throws -> AnnotationSet.Outcome {
            try set.apply(storage: Array(#"{"type":"annotations","client":"c","version":\#(version),"full":false,\#(members)"upsert":[],"remove":[]}"#.utf8))
        }
        #expect(try apply(1, #""day":"tomorrow","field":"wind","source":"feed","#) == .applied)
        #expect(set.day == .tomorrow && set.field == .wind && set.source == "feed")
        #expect(try apply(2, #""day":"tomorrow","field":"wind","source":"feed","#) == .applied)
        #expect(set.day == .tomorrow && set.field == .wind && set.source == "feed")
        #expect(try apply(3, #""day":"today","field":"precipitation","source":"feed2","#) == .applied)
        #expect(set.day == .today && set.field == .precipitation && set.source == "feed2")
        #expect(try apply(4, #""source":"feed","#) == .applied)
        #expect(set.day == .today && set.field == .precipitation && set.source == "feed")
        #expect(try apply(5, #""source":"f\u0065ed","#) == .applied)
        #expect(set.source == "feed")
        #expect(try apply(6, #""source":null,"#) == .applied)
        #expect(set.source == nil)
        #expect(try apply(7, #""day":"today","field":"precipitation","source":"x","#) == .applied)
        #expect(try apply(8, "") == .applied)
        #expect(set.day == .today && set.field == .precipitation && set.source == nil)
        #expect(throws: MessageError.self) { try apply(9, #""day":"todayx","#) }
    }

    /// Ids are bytes (PROTOCOL.md, `annotations`): two spellings of "é" are two annotations, and
    /// removing one leaves the other (a `[String: Item]` merged them).
    @Test func idsAreComparedAsBytesNotByNormalization() throws {
        var set = AnnotationSet()
        let full = #"{"type":"annotations","client":"c","version":1,"full":true,"upsert":[{"id":"é","coordinate":{"latitude":1,"longitude":2}},{"id":"é","coordinate":{"latitude":3,"longitude":4}}],"remove":[]}"#
        #expect(try set.apply(storage: Array(full.utf8)) == .applied)
        #expect(set.count == 2)
        let diff = #"{"type":"annotations","client":"c","version":2,"full":false,"upsert":[],"remove":["é"]}"#
        #expect(try set.apply(storage: Array(diff.utf8)) == .applied)
        #expect(set.count == 1 && set.item("\u{e9}")?.coordinate == Coordinate(latitude: 1, longitude: 2))
    }
}
