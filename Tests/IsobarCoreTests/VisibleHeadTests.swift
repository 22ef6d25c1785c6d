import Testing
@testable import IsobarCore

/// `Visible.writeHead` writes its constant runs in one append each: the same bytes as the head
/// written member by member, with the comma state right for what follows (items, the tail), for
/// both `full` values and both days, a client name that needs escaping, and reads back as written.
@Suite struct VisibleHeadTests {
    @Test func theHeadIsTheMemberByMemberOne() throws {
        let station = Station(id: "K1D3", name: "A \"quoted\" name", coordinate: Coordinate(latitude: 40.5, longitude: -105.25), temperature: 71.5)
        for full in [false, true] {
            for day in Day.allCases {
                for upsert in [[], [Visible.Item.station(station, stale: true)]] {
                    let visible = Visible(client: "c\"7\\", version: 12_345, full: full, day: day,
                                          snapshot: SnapshotInfo(id: "today-1", source: "feed", fetchedAt: 1_795_778_473, ageSeconds: 90),
                                          presentation: Presentation(), upsert: upsert, remove: upsert.isEmpty ? [] : ["GONE"])
                    var written = JSONWriter()
                    visible.write(to: &written)
                    var reference = JSONWriter()
                    reference.objectStart()
                    reference.key("type"); reference.string("visible")
                    reference.key("client"); reference.string(visible.client)
                    reference.key("version"); reference.int(visible.version)
                    reference.key("full"); reference.bool(full)
                    reference.key("day"); reference.string(day.rawValue)
                    visible.snapshot.writeMembers(to: &reference)
                    visible.presentation.write(to: &reference)
                    reference.key("upsert")
                    reference.arrayStart()
                    for item in upsert { item.write(to: &reference) }
                    Visible.writeTail(remove: visible.remove, to: &reference)
                    #expect(String(decoding: written.bytes, as: UTF8.self) == String(decoding: reference.bytes, as: UTF8.self))
                    var again = JSONWriter()
                    try Visible(from: JSONObject(storage: Array(written.bytes.dropLast()))).write(to: &again)  // without the newline
                    #expect(again.bytes == written.bytes)
                }
            }
        }
    }
}
