import Testing
@testable import IsobarCore

/// `ScannedItem`'s two ways to the set's item list the same members: `fill` (an item the set
/// holds, keeping its id) and `item(id:title:in:)` (a new item) must give the same item, and
/// both exactly the scanned values, with every member away from its default.
@Suite struct ScannedItemTests {
    @Test func fillAndMakeGiveTheSameItem() {
        let line = Array(#"{"id":"K1D3","title":"7 mph","subtitle":"PLATTE"}"#.utf8)
        let scanned = ScannedItem(id: ScannedItem.Text(range: 7..<11, escaped: false), coordinate: Coordinate(latitude: 43.5, longitude: -98.25),
                                  title: ScannedItem.Text(range: 22..<27, escaped: false), count: 12, stale: true,
                                  subtitle: ScannedItem.Text(range: 41..<47, escaped: false), cluster: true, rotation: 90)
        line.withUnsafeBytes { line in
            let made = scanned.item(id: "K1D3", title: "7 mph", in: line)
            #expect(made == AnnotationSet.Item(id: "K1D3", coordinate: Coordinate(latitude: 43.5, longitude: -98.25), title: "7 mph", count: 12,
                                               stale: true, subtitle: "PLATTE", cluster: true, rotation: 90))
            #expect(scanned.item(in: line) == made)
            var held = AnnotationSet.Item(id: "K1D3", coordinate: Coordinate(latitude: 0, longitude: 0), title: "old", count: 1,
                                          stale: false, subtitle: "OLD", cluster: false, rotation: nil)
            scanned.fill(&held, in: line, title: "7 mph")
            #expect(held == made)
        }
    }
}
