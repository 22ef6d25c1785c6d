import Testing
@testable import IsobarCore

/// `SnapshotAssembler` with snapshots interleaved line by line, stations out of order and
/// repeated, and the least recently touched snapshot evicted: what its one-lookup fast path for
/// "the same snapshot as the line before" must not change.
@Suite struct SnapshotAssemblerTests {
    static func station(_ snapshot: String, _ seq: Int) -> StationMessage {
        StationMessage(day: .today, snapshot: snapshot, seq: seq,
                       station: Station(id: "\(snapshot)-\(seq)", name: "N", coordinate: Coordinate(latitude: 0, longitude: 0)))
    }

    static func end(_ snapshot: String, _ count: Int) -> SnapshotEnd {
        SnapshotEnd(day: .today, snapshot: snapshot, count: count, source: .feed, fetchedAt: 0)
    }

    static func ids(_ outcome: SnapshotAssembler.Outcome) -> [String]? {
        if case .complete(let stations) = outcome { return stations.map(\.id) }
        return nil
    }

    @Test func interleavedOutOfOrderAndRepeatedStations() throws {
        var assembler = SnapshotAssembler()
        let lines = [("a", 0), ("b", 1), ("a", 2), ("a", 1), ("b", 0), ("b", 0), ("a", 0), ("b", 2), ("a", 3), ("b", 3)]
        for (snapshot, seq) in lines { try assembler.add(Self.station(snapshot, seq)) }
        #expect(assembler.pendingCount == 2)
        #expect(Self.ids(assembler.finish(Self.end("a", 4))) == ["a-0", "a-1", "a-2", "a-3"])
        #expect(Self.ids(assembler.finish(Self.end("b", 4))) == ["b-0", "b-1", "b-2", "b-3"])
        #expect(assembler.pendingCount == 0)
    }

    @Test func theLeastRecentlyTouchedIsEvicted() throws {
        var assembler = SnapshotAssembler(maxPending: 2)
        try assembler.add(Self.station("a", 0))
        try assembler.add(Self.station("b", 0))
        try assembler.add(Self.station("a", 1))
        try assembler.add(Self.station("c", 0))  // evicts b
        try assembler.add(Self.station("c", 1))
        #expect(assembler.pendingCount == 2)
        if case .unknown = assembler.finish(Self.end("b", 1)) {} else { Issue.record("b should have been evicted") }
        #expect(Self.ids(assembler.finish(Self.end("a", 2))) == ["a-0", "a-1"])
        // After a finish, the same name starts over, and c is untouched by it.
        try assembler.add(Self.station("a", 0))
        #expect(Self.ids(assembler.finish(Self.end("a", 1))) == ["a-0"])
        #expect(Self.ids(assembler.finish(Self.end("c", 2))) == ["c-0", "c-1"])
        assembler.discard("c")
        try assembler.add(Self.station("c", 1))
        guard case .incomplete(let received, let expected) = assembler.finish(Self.end("c", 2)) else {
            Issue.record("c should be incomplete after the discard")
            return
        }
        #expect(received == 1 && expected == 2)
    }
}
