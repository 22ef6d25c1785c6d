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

    /// The head with a snapshot's kept provenance bytes (`StationSnapshot.infoMembers`, what the
    /// filter writes) is the head written with its `info`, comma state included (an item and the
    /// tail follow), when the snapshot is made and after its provenance is refreshed (the same
    /// content fetched again later).
    @Test func theKeptProvenanceIsTheSnapshotsInfo() {
        let station = Station(id: "K1D3", name: "N", coordinate: Coordinate(latitude: 40.5, longitude: -105.25), temperature: 71.5)
        let end = SnapshotEnd(day: .today, snapshot: "today-\"7\"", count: 1, source: .feed, fetchedAt: 1_795_778_473.25, ageSeconds: 90)
        let snapshot = StationSnapshot(end: end, stations: [station], interner: KeyInterner())
        func check(_ stage: String) {
            let head = Visible(client: "c1", version: 3, full: false, day: .today, snapshot: .none, presentation: Presentation())
            var kept = JSONWriter()
            head.writeHead(to: &kept, provenance: snapshot.infoMembers)
            var withInfo = head
            withInfo.snapshot = snapshot.info
            var reference = JSONWriter()
            withInfo.writeHead(to: &reference)
            Visible.Item.station(station, stale: false).write(to: &kept)
            Visible.Item.station(station, stale: false).write(to: &reference)
            Visible.writeTail(remove: ["GONE"], to: &kept)
            Visible.writeTail(remove: ["GONE"], to: &reference)
            #expect(String(decoding: kept.bytes, as: UTF8.self) == String(decoding: reference.bytes, as: UTF8.self), "\(stage)")
        }
        check("made")
        snapshot.refresh(source: .store, fetchedAt: 1_795_780_000.5, ageSeconds: 12.75)
        check("refreshed")
        snapshot.refresh(source: .feed, fetchedAt: 1_795_790_000, ageSeconds: 0)
        check("refreshed again")
    }

    /// A refresh (``StationSnapshot/refresh(source:fetchedAt:ageSeconds:)``, which writes the kept
    /// members once for all three) leaves the provenance and its kept bytes exactly as a snapshot
    /// made with that provenance has them.
    @Test func aRefreshKeepsWhatAFreshSnapshotWould() {
        let station = Station(id: "K1D3", name: "N", coordinate: Coordinate(latitude: 40.5, longitude: -105.25), temperature: 71.5)
        func end(_ source: SnapshotEnd.Source, _ fetchedAt: Double, _ ageSeconds: Double) -> SnapshotEnd {
            SnapshotEnd(day: .today, snapshot: "today-\"7\"", count: 1, source: source, fetchedAt: fetchedAt, ageSeconds: ageSeconds)
        }
        let refreshed = StationSnapshot(end: end(.feed, 1_795_778_473.25, 90), stations: [station], interner: KeyInterner())
        refreshed.refresh(source: .store, fetchedAt: 1_795_780_000.5, ageSeconds: 12.75)
        let fresh = StationSnapshot(end: end(.store, 1_795_780_000.5, 12.75), stations: [station], interner: KeyInterner())
        #expect(refreshed.info == fresh.info)
        #expect(refreshed.info == SnapshotInfo(id: "today-\"7\"", source: "store", fetchedAt: 1_795_780_000.5, ageSeconds: 12.75))
        #expect(String(decoding: refreshed.infoMembers, as: UTF8.self) == String(decoding: fresh.infoMembers, as: UTF8.self))
    }
}
