import Testing
@testable import IsobarCore

/// The filter's rules under restarts and replays (PROTOCOL.md, "Which snapshot wins" and
/// "Versions across restarts"): newest data wins, a replay changes nothing, no blank map, versions
/// never go back, version 0 is answered at once, and timed work runs without input.
@Suite struct FilterRestartTests {
    let base = FilterEngineTests()

    func stations(shift: Double) throws -> [Station] {
        try TestSupport.onx(.today).map { station in
            var copy = station
            copy.temperature = (station.temperature ?? 50) + shift
            return copy
        }
    }

    func visible(_ out: [JSONObject]) -> [JSONObject] { out.filter { $0.str("type") == "visible" } }

    @Test func anOlderSnapshotNeverReplacesANewerOne() throws {
        let engine = FilterEngine()
        let a = TestSupport.snapshotLines(day: .today, stations: try stations(shift: 1), fetchedAt: 2_000)
        let b = TestSupport.snapshotLines(day: .today, stations: try stations(shift: 2), fetchedAt: 1_000)
        _ = base.feed(engine, a)
        var model = ClientModel()
        for message in visible(base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20))) { model.apply(message) }
        let held = engine.snapshot(for: .today)?.id
        #expect(base.feed(engine, b).isEmpty)  // B was fetched earlier: nothing changes for anyone
        #expect(engine.snapshot(for: .today)?.id == held)
        #expect(model.items["K1D3"]?.num("temperature") == 46.4 + 1)
    }

    /// 2 to 3 publishers (fetch, persist, a second persist) replay old and new snapshots in random
    /// interleavings, line by line; whatever the order, the filter ends on the highest rank it
    /// completed, and a client holds exactly that snapshot's values.
    @Test func newestWinsOverRandomInterleavingsOfPublishers() throws {
        var random = TestSupport.Random(seed: 11)
        let onx = try TestSupport.onx(.today)
        // Five contents; two share a fetch time (the tie goes to the greater id).
        let fetchTimes: [Double] = [1_000, 2_000, 3_000, 3_000, 1_500]
        var snapshots: [(rank: SnapshotRank, lines: [[UInt8]], shift: Double)] = []
        for (n, fetchedAt) in fetchTimes.enumerated() {
            let shift = Double(n + 1)
            let content = onx.map { var s = $0; s.temperature = ($0.temperature ?? 50) + shift; return s }
            let lines = TestSupport.snapshotLines(day: .today, stations: content, fetchedAt: fetchedAt)
            let end = try JSONObject(storage: lines[lines.count - 1])
            snapshots.append((SnapshotRank(fetchedAt: fetchedAt, snapshot: end.str("snapshot") ?? ""), lines, shift))
        }
        for round in 0..<120 {
            let engine = FilterEngine()
            var model = ClientModel()
            for message in visible(base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20))) { model.apply(message) }
            let publishers = 2 + Int(random.next() % 2)
            // Each publisher replays a random sequence of snapshots (old ones included, repeats too).
            var queues: [[[UInt8]]] = []
            var published: [Int] = []
            for _ in 0..<publishers {
                var queue: [[UInt8]] = []
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    let pick = Int(random.next() % UInt64(snapshots.count))
                    published.append(pick)
                    queue += snapshots[pick].lines
                }
                queues.append(queue)
            }
            // Interleave them line by line at random.
            var cursors = [Int](repeating: 0, count: publishers)
            while let p = (0..<publishers).filter({ cursors[$0] < queues[$0].count }).randomElement(using: &random) {
                for message in visible(base.feed(engine, [queues[p][cursors[p]]])) { model.apply(message) }
                cursors[p] += 1
            }
            let winner = published.map { snapshots[$0] }.max { $0.rank < $1.rank }
            #expect(engine.snapshot(for: .today)?.id == winner?.rank.snapshot, "round \(round)")
            #expect(model.items["K1D3"]?.num("temperature") == 46.4 + (winner?.shift ?? 0), "round \(round)")
            #expect(model.gaps == 0)
        }
    }

    @Test func equalFetchTimesAreBrokenByTheGreaterId() {
        let a = SnapshotRank(fetchedAt: 5, snapshot: "today-0a")
        let b = SnapshotRank(fetchedAt: 5, snapshot: "today-0b")
        #expect(a < b && !(b < a))
        #expect(SnapshotRank(fetchedAt: 6, snapshot: "today-00") > b)
        #expect(!(a < a))
    }

    @Test func aReplayOfTheHeldSnapshotChangesNothingAClientSees() throws {
        let engine = FilterEngine()
        let onx = try TestSupport.onx(.today)
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: onx, fetchedAt: 1_000))
        _ = base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20))
        // The store replays the same content (same id, same fetch time, source store).
        var writer = JSONWriter()
        OnXFeed.writeSnapshot(day: .today, stations: onx, source: .store, fetchedAt: 1_000, ageSeconds: 30, into: &writer)
        #expect(base.feed(engine, writer.bytes.split(separator: 0x0A).map(Array.init)).isEmpty)
        #expect(engine.snapshot(for: .today)?.source == .feed)
        // The same content fetched again later: the client's age moves (one empty diff).
        let later = visible(base.feed(engine, TestSupport.snapshotLines(day: .today, stations: onx, fetchedAt: 1_600)))
        #expect(later.count == 1)
        #expect(later.first?.num("fetchedAt") == 1_600)
        #expect(later.first?.objects("upsert").isEmpty == true)
    }

    @Test func aNewSnapshotWithNoVisibleChangeStillMovesTheClientsSnapshotAndAge() throws {
        let engine = FilterEngine()
        var onx = try TestSupport.onx(.today)
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: onx, fetchedAt: 1_000))
        _ = base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20))
        // A change far outside the view (Alaska is not in the initial region).
        let outside = try #require(onx.firstIndex { $0.coordinate.longitude < -130 || $0.coordinate.latitude > 54 || $0.coordinate.latitude < 28 })
        onx[outside].temperature = 1
        let lines = TestSupport.snapshotLines(day: .today, stations: onx, fetchedAt: 2_000)
        let out = visible(base.feed(engine, lines))
        #expect(out.count == 1)
        #expect(out.first?.num("version") == 2)
        #expect(out.first?.str("snapshot") == engine.snapshot(for: .today)?.id)
        #expect(out.first?.num("fetchedAt") == 2_000)
        #expect(out.first?.objects("upsert").isEmpty == true)
        #expect(out.first?.strings("remove").isEmpty == true)
    }

    @Test func aRestartedFilterKeepsTheClientsMapUntilItHasData() throws {
        let engine = FilterEngine()
        // The client held version 12 from the filter before the restart.
        let waiting = base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20, extra: #","version":12"#))
        #expect(visible(waiting).isEmpty)  // no empty full set: the map does not go blank
        #expect(waiting.contains { $0.str("type") == "resync" })  // it asks for data instead
        // Heartbeats while waiting change nothing either.
        #expect(visible(base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20, extra: #","version":12"#), at: 1_001)).isEmpty)
        #expect(visible(base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20, extra: #","version":0"#), at: 1_001.5)).isEmpty)
        let data = visible(base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)), at: 1_002))
        #expect(data.map { $0.num("version") } == [13])  // versions go on, never back to 1
        #expect(data.first.flatMap { $0.field("full").flatMap($0.bool) } == true)
        #expect(data.first?.objects("upsert").count == 85)
        // A brand-new client (no version) still gets its empty answer at once: it holds nothing.
        let fresh = FilterEngine()
        #expect(visible(base.feed(fresh, base.viewport("n", 0, 0, 1, 1))).map { $0.num("version") } == [1])
    }

    @Test func versionZeroGetsAFullSetAtOnceAndAVersionAheadIsAdopted() throws {
        let engine = FilterEngine()
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20), at: 1_000)
        // Version 0 right after the answer (inside the lost-answer grace): a full set at once.
        let zero = visible(base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20, extra: #","version":0"#), at: 1_000.01))
        #expect(zero.map { $0.num("version") } == [2])
        #expect(zero.first.flatMap { $0.field("full").flatMap($0.bool) } == true)
        // And again, without backoff.
        #expect(visible(base.feed(engine, base.viewport("c", 40.924, -108.0955, 25, 20, extra: #","version":0"#), at: 1_000.02)).count == 1)
        // A moved viewport with version 0 gets a full set, not a diff.
        let moved = visible(base.feed(engine, base.viewport("c", 41, -107, 25, 20, extra: #","version":0"#), at: 1_000.03))
        #expect(moved.first.flatMap { $0.field("full").flatMap($0.bool) } == true)
        #expect(moved.first?.num("version") == 4)
        // A version ahead of the filter: the client holds a set from an earlier filter; go on from it.
        let ahead = visible(base.feed(engine, base.viewport("c", 41, -107, 25, 20, extra: #","version":40"#), at: 1_000.04))
        #expect(ahead.map { $0.num("version") } == [41])
        #expect(ahead.first.flatMap { $0.field("full").flatMap($0.bool) } == true)
    }

    @Test func theMissingDayScheduleAndTheIdleSweepRunOnTheTimer() throws {
        var options = FilterOptions()
        options.idleSeconds = 60
        let engine = FilterEngine(options: options)
        _ = base.feed(engine, base.viewport("c", 10, 10, 1, 1, day: "tomorrow"), at: 1_000)
        // No more input: ticks alone follow the documented schedule (1 s, then 2, 4, 8 … apart).
        var requests: [Double] = []
        for k in 1...120 {
            let now = 1_000 + Double(k) * 0.25
            var writer = JSONWriter()
            engine.tick(now: now, into: &writer)
            if TestSupport.objects(writer).contains(where: { $0.str("type") == "resync" }) { requests.append(now) }
        }
        #expect(requests == [1_002, 1_006, 1_014, 1_030])
        // The idle sweep runs on the timer too.
        var writer = JSONWriter()
        engine.tick(now: 1_061, into: &writer)
        #expect(engine.clientCount == 0)
    }

    @Test func anIncompleteSnapshotsErrorCarriesAnExcerpt() throws {
        let engine = FilterEngine()
        var lines = TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today))
        lines.remove(at: 3)
        let errors = base.feed(engine, lines).filter { $0.str("type") == "error" }
        #expect(errors.count == 1)
        #expect(errors.first?.str("excerpt")?.hasPrefix(#"{"type":"snapshot","day":"today""#) == true)
    }
}
extension TestSupport.Random: RandomNumberGenerator {}
