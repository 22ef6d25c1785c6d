import Testing
@testable import IsobarCore

/// How a gateway learns what the filter's snapshot rule did (issue 27, item 2's reporting): the
/// filter's tally carries an ``AcceptanceReport``, and ``AcceptanceWatch`` turns the reports into
/// counter growth for `/metrics`, log lines, and the reason `/healthz` says "degraded".
@Suite struct AcceptanceWatchTests {
    static let forged = AcceptanceReport.Hold(day: .today, snapshot: "today-forged", count: 1, of: 181)
    static let forgedReason = "the filter holds back snapshot today-forged of today (1 station(s) where the day's has 181) until a later fetch of the same content confirms it"

    @Test func theReportTravelsInTheTallyAndReadsBackTheSame() throws {
        let report = AcceptanceReport(refusedFuture: 2, heldShrunk: 1, heldEmpty: 3, confirmed: 4, holds: [Self.forged])
        var writer = JSONWriter()
        Tally(gateway: "gw", clients: 0, digest: "0000000000000000", resend: false, today: "today-a", tomorrow: nil, acceptance: report)
            .write(to: &writer)
        let line = String(decoding: writer.bytes, as: UTF8.self)
        #expect(line == #"{"type":"tally","gateway":"gw","clients":0,"digest":"0000000000000000","resend":false,"today":"today-a","tomorrow":null,"shard":"0/1","acceptance":{"refusedFuture":2,"heldShrunk":1,"heldEmpty":3,"confirmed":4,"holds":[{"day":"today","snapshot":"today-forged","count":1,"of":181}]}}"# + "\n")
        let back = try Tally(from: JSONObject(storage: Array(writer.bytes.dropLast())))
        #expect(back.acceptance == report)
        // An older filter's tally has none; a bad one is refused, not guessed.
        #expect(try Tally(from: JSONObject(storage: Array(#"{"type":"tally","gateway":"gw"}"#.utf8))).acceptance == nil)
        #expect(throws: MessageError.self) {
            try Tally(from: JSONObject(storage: Array(#"{"type":"tally","gateway":"gw","acceptance":{"refusedFuture":-1}}"#.utf8)))
        }
        #expect(throws: MessageError.self) {
            try Tally(from: JSONObject(storage: Array(#"{"type":"tally","gateway":"gw","acceptance":{"holds":[1]}}"#.utf8)))
        }
    }

    @Test func theWatchCountsGrowthLogsChangesAndSaysWhyDegraded() {
        var watch = AcceptanceWatch()
        #expect(watch.degradedReason == nil)
        // Nothing yet.
        var (growth, events) = watch.observe(AcceptanceReport())
        #expect(growth == AcceptanceWatch.Growth() && events.isEmpty && watch.degradedReason == nil)
        // A forged snapshot held back.
        (growth, events) = watch.observe(AcceptanceReport(heldShrunk: 1, holds: [Self.forged]))
        #expect(growth == AcceptanceWatch.Growth(heldShrunk: 1))
        #expect(events == [.warning(Self.forgedReason)])
        #expect(watch.degradedReason == Self.forgedReason)
        // The same report on the next tally: nothing new.
        (growth, events) = watch.observe(AcceptanceReport(heldShrunk: 1, holds: [Self.forged]))
        #expect(growth == AcceptanceWatch.Growth() && events.isEmpty && watch.degradedReason == Self.forgedReason)
        // Two refused from the future, and an empty one held for tomorrow.
        let empty = AcceptanceReport.Hold(day: .tomorrow, snapshot: "tomorrow-empty", count: 0, of: 150)
        (growth, events) = watch.observe(AcceptanceReport(refusedFuture: 2, heldShrunk: 1, heldEmpty: 1, holds: [Self.forged, empty]))
        #expect(growth == AcceptanceWatch.Growth(refusedFuture: 2, heldEmpty: 1))
        #expect(events.count == 2)
        #expect(events.first == .warning("the filter refused 2 snapshot(s) fetched too far in the future (2 since it started)"))
        #expect(watch.degradedReason == Self.forgedReason + "; the filter holds back snapshot tomorrow-empty of tomorrow (0 station(s) where the day's has 150) until a later fetch of the same content confirms it")
        // Today's is confirmed by a later fetch: applied, and only tomorrow's stays.
        (growth, events) = watch.observe(AcceptanceReport(refusedFuture: 2, heldShrunk: 1, heldEmpty: 1, confirmed: 1, holds: [empty]))
        #expect(growth == AcceptanceWatch.Growth(confirmed: 1))
        #expect(events == [.notice("snapshot today-forged of today no longer held back (applied: a later fetch confirmed it)")])
        // The filter restarted: its counters start again from 0, and what it counts now is new.
        (growth, events) = watch.observe(AcceptanceReport(refusedFuture: 1))
        #expect(growth == AcceptanceWatch.Growth(refusedFuture: 1))
        #expect(events == [.warning("the filter refused 1 snapshot(s) fetched too far in the future (1 since it started)"),
                           .notice("snapshot tomorrow-empty of tomorrow no longer held back (released: a newer fetch replaced it)")])
        #expect(watch.degradedReason == nil)
    }

    @Test func theFiltersTallyReportsWhatItHoldsBackAndRefused() throws {
        let base = FilterEngineTests()
        let wall = 1_700_000_000.0
        let engine = FilterEngine(wallClock: { wall })
        let stations = try TestSupport.onx(.today)
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: stations, fetchedAt: wall - 60))
        let lease = #"{"type":"lease","gateway":"gw","clients":0,"digest":"0000000000000000"}"#
        func report() throws -> AcceptanceReport? {
            try Tally(from: try #require(base.feed(engine, lease).first { $0.str("type") == "tally" })).acceptance
        }
        #expect(try report() == AcceptanceReport())
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: [stations[0]], id: "forged", fetchedAt: wall + 5))
        _ = base.feed(engine, #"{"type":"snapshot","day":"today","snapshot":"late","count":0,"fetchedAt":\#(wall + 86_400)}"#)
        #expect(try report() == AcceptanceReport(refusedFuture: 1, heldShrunk: 1,
                                                holds: [AcceptanceReport.Hold(day: .today, snapshot: "forged", count: 1, of: 181)]))
        // The empty one replaces the forged candidate; its end marker again, fetched later, confirms it.
        _ = base.feed(engine, #"{"type":"snapshot","day":"today","snapshot":"empty","count":0,"fetchedAt":\#(wall + 6)}"#)
        #expect(try report()?.holds == [AcceptanceReport.Hold(day: .today, snapshot: "empty", count: 0, of: 181)])
        _ = base.feed(engine, #"{"type":"snapshot","day":"today","snapshot":"empty","count":0,"fetchedAt":\#(wall + 7)}"#)
        #expect(try report() == AcceptanceReport(refusedFuture: 1, heldShrunk: 1, heldEmpty: 1, confirmed: 1))
    }
}
