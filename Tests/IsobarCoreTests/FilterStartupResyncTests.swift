import Testing
@testable import IsobarCore

/// `isobar filter --request-resync`: the start-up `resync` may go nowhere (ZeroMQ's slow joiner),
/// so the stage asks again on its timer, 1, 2, 4 … s apart, until it holds a snapshot, and never
/// after (`FilterStage.StartupResync`).
@Suite struct FilterStartupResyncTests {
    /// The times among `ticks` at which the stage wrote a `resync`.
    static func askedAt(_ stage: FilterStage, ticks: [Double]) -> [Double] {
        ticks.filter { now in
            var out = JSONWriter()
            stage.tick(now: now, into: &out)
            return TestSupport.objects(out).contains { $0.str("type") == "resync" }
        }
    }

    /// Ticks every 0.25 s (the filter's `tickEvery`) from `from`, `count` of them.
    static func ticks(from: Double, count: Int) -> [Double] {
        (0..<count).map { from + Double($0) * 0.25 }
    }

    @Test func theStartUpRequestIsAskedAgainUntilASnapshotIsHeld() throws {
        let stage = FilterStage(engine: FilterEngine(), chain: nil, requestResync: true)
        var first = JSONWriter()
        stage.start(into: &first)
        #expect(TestSupport.objects(first).map { $0.str("reason") } == ["filter started"])
        // The first tick (10) starts the schedule: 1 s, then 2, then 4, then 8 (25, past the ticks).
        #expect(Self.askedAt(stage, ticks: Self.ticks(from: 10, count: 40)) == [11, 13, 17])

        let stations = Array(try TestSupport.world().prefix(20))
        var out = JSONWriter()
        for line in TestSupport.snapshotLines(day: .today, stations: stations) {
            line.withUnsafeBytes { stage.handle(line: $0, now: 20, into: &out) }
        }
        #expect(stage.engine.snapshot(for: .today)?.stations.count == 20)
        // Held: never asked again, however long the ticks go on.
        #expect(Self.askedAt(stage, ticks: Self.ticks(from: 20, count: 400)) == [])
    }

    @Test func withoutTheFlagNothingIsAsked() {
        let stage = FilterStage(engine: FilterEngine(), chain: nil, requestResync: false)
        var first = JSONWriter()
        stage.start(into: &first)
        #expect(first.bytes.isEmpty)
        #expect(Self.askedAt(stage, ticks: Self.ticks(from: 0, count: 200)) == [])
    }
}
