import Testing
@testable import IsobarCore

/// The plausibility rule shared by the filter and persist (PROTOCOL.md, "Implausible snapshots"),
/// and the filter holding on to a day's snapshot against a forged or empty one (issue 27, item 2).
@Suite struct SnapshotAcceptanceTests {
    static func end(_ id: String, count: Int, fetchedAt: Double, day: Day = .today) -> SnapshotEnd {
        SnapshotEnd(day: day, snapshot: id, count: count, source: .feed, fetchedAt: fetchedAt)
    }

    static func stations(_ count: Int) -> [Station] {
        (0..<count).map { Station(id: "S\($0)", name: "S\($0)", coordinate: Coordinate(latitude: Double($0 % 80), longitude: 0)) }
    }

    /// One row: the snapshot offered, what the day holds, and the verdict expected.
    struct Row: Sendable, CustomTestStringConvertible {
        var offered: Int
        var held: Int?
        var fraction = 0.5
        var acceptShrink = false
        var expected: SnapshotAcceptance.Verdict
        var testDescription: String { "\(offered) over \(held.map(String.init) ?? "nothing") at \(fraction)\(acceptShrink ? " accepting shrink" : "")" }
    }

    static let rows: [Row] = [
        Row(offered: 300, held: nil, expected: .apply),
        Row(offered: 0, held: nil, expected: .apply),
        Row(offered: 300, held: 300, expected: .apply),
        Row(offered: 150, held: 300, expected: .apply),  // exactly half is not fewer than half
        Row(offered: 149, held: 300, expected: .hold(count: 149, held: 300)),
        Row(offered: 1, held: 300, expected: .hold(count: 1, held: 300)),
        Row(offered: 0, held: 300, expected: .hold(count: 0, held: 300)),
        Row(offered: 0, held: 1, fraction: 0, expected: .hold(count: 0, held: 1)),  // empty is always shrunk
        Row(offered: 1, held: 300, fraction: 0, expected: .apply),
        Row(offered: 0, held: 0, expected: .apply),
        Row(offered: 900, held: 300, expected: .apply),
        Row(offered: 0, held: 300, acceptShrink: true, expected: .apply),
        Row(offered: 1, held: 300, acceptShrink: true, expected: .apply),
    ]

    @Test(arguments: rows) func shrinkTable(_ row: Row) {
        var acceptance = SnapshotAcceptance(policy: SnapshotPolicy(minShrinkFraction: row.fraction, acceptShrink: row.acceptShrink))
        #expect(acceptance.judge(Self.end("x", count: row.offered, fetchedAt: 10), stations: Self.stations(row.offered), held: row.held) == row.expected)
    }

    @Test func futureTable() {
        var acceptance = SnapshotAcceptance(policy: SnapshotPolicy(maxFutureSkew: 120))
        let now = 1_000_000.0
        let tenYears = 10.0 * 365 * 86_400
        let aheads = [now - 86_400, now + 5, now + 120, now + 121, now + tenYears].map {
            acceptance.checkClock(Self.end("a", count: 1, fetchedAt: $0), now: now)
        }
        #expect(aheads == [nil, nil, nil, 121, tenYears])
        #expect(acceptance.refusedFuture == 2)
    }

    @Test func aShrunkSnapshotIsAppliedOnlyWhenALaterFetchOfTheSameContentConfirmsIt() throws {
        var acceptance = SnapshotAcceptance()
        let small = Self.stations(2)
        #expect(acceptance.judge(Self.end("small", count: 2, fetchedAt: 10), stations: small, held: 300) == .hold(count: 2, held: 300))
        #expect(acceptance.candidate(.today) == "small")
        // A replay (same fetch time) or an older copy confirms nothing.
        #expect(acceptance.judge(Self.end("small", count: 2, fetchedAt: 10), stations: small, held: 300) == .hold(count: 2, held: 300))
        #expect(acceptance.confirmation(of: Self.end("small", count: 2, fetchedAt: 9)) == nil)
        // Another day, another id: no confirmation.
        #expect(acceptance.confirmation(of: Self.end("small", count: 2, fetchedAt: 20, day: .tomorrow)) == nil)
        #expect(acceptance.confirmation(of: Self.end("other", count: 2, fetchedAt: 20)) == nil)
        #expect(acceptance.heldShrunk == 1)
        // The end marker alone, fetched later: the held stations come back, and are applied.
        let confirmed = try #require(acceptance.confirmation(of: Self.end("small", count: 2, fetchedAt: 20)))
        #expect(confirmed.map(\.id) == ["S0", "S1"])
        #expect(acceptance.judge(Self.end("small", count: 2, fetchedAt: 20), stations: confirmed, held: 300) == .apply)
        #expect(acceptance.candidate(.today) == nil)
        // The whole snapshot again, fetched later, confirms too.
        #expect(acceptance.judge(Self.end("tiny", count: 1, fetchedAt: 30), stations: Self.stations(1), held: 300) == .hold(count: 1, held: 300))
        #expect(acceptance.judge(Self.end("tiny", count: 1, fetchedAt: 31), stations: Self.stations(1), held: 300) == .apply)
        // A plausible snapshot clears any candidate.
        _ = acceptance.judge(Self.end("tiny2", count: 1, fetchedAt: 40), stations: Self.stations(1), held: 300)
        #expect(acceptance.judge(Self.end("full", count: 300, fetchedAt: 41), stations: Self.stations(300), held: 300) == .apply)
        #expect(acceptance.candidate(.today) == nil)
    }

    // MARK: - The filter under the attack

    func feed(_ engine: FilterEngine, _ lines: [[UInt8]]) -> [JSONObject] { FilterEngineTests().feed(engine, lines) }
    func feed(_ engine: FilterEngine, _ text: String) -> [JSONObject] { FilterEngineTests().feed(engine, text) }

    static let viewport = #"{"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20}}"#

    @Test func aForgedFutureSnapshotAndALoneEmptyEndMarkerChangeNothingAClientHolds() throws {
        let stations = try TestSupport.onx(.today)
        let wall = 1_700_000_000.0
        let engine = FilterEngine(wallClock: { wall })
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations, fetchedAt: wall - 60))
        var model = ClientModel()
        for m in feed(engine, Self.viewport) { model.apply(m) }
        #expect(model.items.count == 85)
        let held = engine.snapshot(for: .today)?.id

        // One station, fetched 5 s in the future: plausible in time, but implausibly shrunk.
        var forged = stations[0]
        forged.temperature = -40
        let shrunk = feed(engine, TestSupport.snapshotLines(day: .today, stations: [forged], id: "forged-1", fetchedAt: wall + 5))
        #expect(shrunk.map { $0.str("type") } == ["status"])
        #expect(shrunk.first?.str("state") == "held")
        #expect(shrunk.first?.str("reason")?.contains("has 1 station(s), fewer than 50% of the 181 held") == true)
        // The same content with the fetch time 10 years ahead: refused for its clock.
        let future = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations.map { var s = $0; s.temperature = 0; return s },
                                                          id: "forged-2", fetchedAt: wall + 10 * 365 * 86_400))
        #expect(future.map { $0.str("type") } == ["error"])
        #expect(future.first?.str("message")?.contains("in the future (more than 120 s ahead of this clock); refused (1 so far)") == true)
        // Our own snapshot's id with a future fetch time cannot pin it either.
        let pinned = feed(engine, #"{"type":"snapshot","day":"today","snapshot":"\#(held ?? "")","count":181,"fetchedAt":\#(wall + 86_400)}"#)
        #expect(pinned.map { $0.str("type") } == ["error"])
        // A lone end marker with no stations.
        let empty = feed(engine, #"{"type":"snapshot","day":"today","snapshot":"empty","count":0,"fetchedAt":\#(wall)}"#)
        #expect(empty.map { $0.str("type") } == ["status"])
        #expect(engine.snapshot(for: .today)?.id == held)
        #expect(engine.snapshot(for: .today)?.fetchedAt == wall - 60)
        #expect(engine.acceptance.heldShrunk == 1 && engine.acceptance.heldEmpty == 1 && engine.acceptance.refusedFuture == 2)

        // The honest fetcher announces its unchanged snapshot again: the client's set moves its age only.
        let again = feed(engine, #"{"type":"snapshot","day":"today","snapshot":"\#(held ?? "")","count":181,"fetchedAt":\#(wall + 1)}"#)
        for m in again { model.apply(m) }
        #expect(again.map { $0.str("type") } == ["visible"])
        #expect(model.items.count == 85 && model.gaps == 0)
        #expect(model.items["K1D3"]?.num("temperature") == stations.first { $0.id == "K1D3" }?.temperature)

        // A feed that really answers `[]`: its end marker again from a later fetch confirms it.
        let confirmed = feed(engine, #"{"type":"snapshot","day":"today","snapshot":"empty","count":0,"fetchedAt":\#(wall + 2)}"#)
        for m in confirmed { model.apply(m) }
        #expect(engine.snapshot(for: .today)?.id == "empty")
        #expect(model.items.isEmpty && model.gaps == 0)
    }

    @Test func acceptShrinkAppliesAnEmptySnapshotAtOnce() throws {
        var options = FilterOptions()
        options.snapshotPolicy.acceptShrink = true
        let engine = FilterEngine(options: options, wallClock: { 5_000 })
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today), fetchedAt: 4_000))
        let out = feed(engine, #"{"type":"snapshot","day":"today","snapshot":"empty","count":0,"fetchedAt":4001}"#)
        #expect(out.map { $0.str("type") } == ["visible"] || out.isEmpty)
        #expect(engine.snapshot(for: .today)?.id == "empty")
    }
}
