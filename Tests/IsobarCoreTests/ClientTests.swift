import Testing
@testable import IsobarCore

@Suite struct ClientTests {
    func message(_ text: String) throws -> JSONObject { try JSONObject(parsing: text) }

    @Test func annotationSetAppliesInOrderAndDetectsGaps() throws {
        var set = AnnotationSet()
        let full = #"{"type":"annotations","version":1,"full":true,"day":"today","field":"wind","upsert":[{"id":"A","coordinate":{"latitude":1,"longitude":2},"title":"x"},{"id":"B","coordinate":{"latitude":3,"longitude":4},"title":"y"}],"remove":[]}"#
        #expect(try set.apply(message(full)) == .applied)
        #expect(Set(set.items.keys) == ["A", "B"])
        #expect(set.field == .wind)
        #expect(try set.apply(message(#"{"version":2,"full":false,"upsert":[{"id":"C","coordinate":{"latitude":0,"longitude":0},"title":""}],"remove":["A"]}"#)) == .applied)
        #expect(Set(set.items.keys) == ["B", "C"])
        #expect(try set.apply(message(#"{"version":2,"full":false,"upsert":[],"remove":["B"]}"#)) == .stale)
        #expect(set.items.count == 2)
        #expect(try set.apply(message(#"{"version":4,"full":false,"upsert":[],"remove":["B"]}"#)) == .gap(expected: 3, got: 4))
        #expect(set.broken)
        #expect(try set.apply(message(#"{"version":5,"full":false,"upsert":[],"remove":[]}"#)) == .gap(expected: 5, got: 5))
        #expect(try set.apply(message(full.replacingOccurrences(of: #""version":1"#, with: #""version":6"#))) == .applied)
        #expect(!set.broken && set.items.count == 2)
    }

    @Test func textMapDrawsTitlesAtTheirPositionsAcrossTheAntimeridian() throws {
        let region = try Region(center: Coordinate(latitude: 0, longitude: 180), latitudeDelta: 10, longitudeDelta: 20)
        let items = [
            AnnotationSet.Item(id: "E", coordinate: Coordinate(latitude: 5, longitude: 171), title: "46°", count: 1),
            AnnotationSet.Item(id: "W", coordinate: Coordinate(latitude: -5, longitude: -171), title: "", count: 1),
            AnnotationSet.Item(id: "C", coordinate: Coordinate(latitude: 0, longitude: -175), title: "12", count: 3),
        ]
        let rows = TextMap.render(items, region: region, width: 21, height: 11)
        #expect(rows.count == 11 && rows.allSatisfy { $0.count == 21 })
        #expect(rows[0].hasPrefix(" 46°"))              // 171°E is 9° west of centre: column 1, top row
        #expect(rows[10].hasSuffix("· "))               // 171°W: column 19, bottom row
        #expect(rows[5] == "          +    (3)12 ")   // centre marked; the cluster shows its count
        #expect(TextMap.nearest(items, to: region.center)?.id == "C")
    }
}
