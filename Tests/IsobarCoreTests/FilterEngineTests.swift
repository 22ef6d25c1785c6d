import Testing
@testable import IsobarCore

/// A client that applies every `visible` message in order, as the contract says.
struct ClientModel {
    var items: [String: JSONObject] = [:]
    var version = 0
    var gaps = 0

    mutating func apply(_ message: JSONObject) {
        let v = Int(message.num("version") ?? -1)
        if v != version + 1 { gaps += 1 }
        version = v
        if message.field("full").flatMap({ message.bool($0) }) == true { items = [:] }
        for id in message.strings("remove") { items[id] = nil }
        for item in message.objects("upsert") { items[item.str("id")!] = item }
    }
}

@Suite struct FilterEngineTests {
    let now = 1_000.0

    func feed(_ engine: FilterEngine, _ lines: [[UInt8]], at time: Double = 1_000) -> [JSONObject] {
        var writer = JSONWriter()
        for line in lines { line.withUnsafeBytes { engine.handle(line: $0, now: time, into: &writer) } }
        return TestSupport.objects(writer)
    }

    func feed(_ engine: FilterEngine, _ text: String, at time: Double = 1_000) -> [JSONObject] {
        feed(engine, [Array(text.utf8)], at: time)
    }

    func viewport(_ client: String, _ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double, day: String = "today", extra: String = "") -> String {
        #"{"type":"viewport","client":"\#(client)","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)},"day":"\#(day)"\#(extra)}"#
    }

    @Test func initialRegionHasThe85Stations() throws {
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        let out = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20))
        #expect(out.count == 1)
        let message = try #require(out.first)
        #expect(message.str("type") == "visible")
        #expect(message.num("version") == 1)
        #expect(message.objects("upsert").count == 85)
        #expect(message.objects("upsert").contains { $0.str("id") == "K6V4" })
    }

    @Test func pansSendOnlyDifferencesAndReproduceBruteForce() throws {
        let world = try TestSupport.world()
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: world))
        var model = ClientModel()
        var random = TestSupport.Random(seed: 7)
        var lat = 40.0, lon = 170.0, dlat = 20.0, dlon = 30.0
        var sawDiff = false
        for step in 0..<400 {
            lat = max(-90, min(90, lat + random.uniform(-8...8)))
            lon += random.uniform(-10...10)
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            if step % 7 == 0 { dlat = random.uniform(0.5...60); dlon = random.uniform(0.5...120) }
            if step % 50 == 0 { lat = step % 100 == 0 ? 88 : -88 }
            let out = feed(engine, viewport("bob", lat, lon, dlat, dlon, extra: #","limit":1000000"#))
            for message in out where message.str("type") == "visible" {
                if message.field("full").flatMap({ message.bool($0) }) == false { sawDiff = true }
                model.apply(message)
            }
            let center = Coordinate(latitude: lat, longitude: lon)
            let expected = Set(world.filter { referenceVisible($0.coordinate, center: center, dlat: dlat, dlon: dlon) }.map(\.id))
            #expect(Set(model.items.keys) == expected, "step \(step)")
        }
        #expect(model.gaps == 0)
        #expect(sawDiff)
    }

    @Test func newSnapshotSendsOnlyChangesInView() throws {
        var stations = try TestSupport.onx(.today)
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations))
        var model = ClientModel()
        for m in feed(engine, viewport("alice", 40.924, -108.0955, 25, 20)) { model.apply(m) }
        let inside = try #require(stations.firstIndex { $0.id == "K1D3" })
        let center = Coordinate(latitude: 40.924, longitude: -108.0955)
        let outside = try #require(stations.firstIndex { !referenceVisible($0.coordinate, center: center, dlat: 25, dlon: 20) })
        stations[inside].temperature = 12
        stations[outside].temperature = 99
        let out = feed(engine, TestSupport.snapshotLines(day: .today, stations: stations, fetchedAt: 2_000))
        #expect(out.count == 1)
        let message = try #require(out.first)
        #expect(message.field("full").flatMap { message.bool($0) } == false)
        #expect(message.objects("upsert").map { $0.str("id") } == ["K1D3"])
        #expect(message.objects("upsert").first?.num("temperature") == 12)
        #expect(message.strings("remove").isEmpty)
        model.apply(message)
        #expect(model.items.count == 85 && model.gaps == 0)
        // The same snapshot again (a replay) changes nothing and sends nothing.
        #expect(feed(engine, TestSupport.snapshotLines(day: .today, stations: stations, fetchedAt: 2_000)).isEmpty)
    }

    @Test func incompleteSnapshotIsNeverUsedAndAsksForResync() throws {
        let stations = try TestSupport.onx(.today)
        let engine = FilterEngine()
        var lines = TestSupport.snapshotLines(day: .today, stations: stations)
        lines.remove(at: 17)
        // A client waiting without data makes the filter ask for a snapshot...
        #expect(feed(engine, viewport("alice", 40.924, -108.0955, 25, 20), at: 1_000).map { $0.str("type") } == ["resync", "visible"])
        // ...and a broken one makes it ask again (requests are at most one per second).
        let out = feed(engine, lines, at: 1_002)
        #expect(out.map { $0.str("type") } == ["error", "resync"])
        #expect(out[0].str("message")?.contains("incomplete (180 of 181 stations)") == true)
        #expect(engine.snapshot(for: .today) == nil)
    }

    @Test func dayToggleSendsFullSetAndKeepsTheCallout() throws {
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = feed(engine, TestSupport.snapshotLines(day: .tomorrow, stations: try TestSupport.onx(.tomorrow)))
        _ = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20))
        let selected = feed(engine, #"{"type":"select","client":"alice","id":"K1D3"}"#)
        #expect(selected.map { $0.str("type") } == ["selection"])
        #expect(selected.first?.str("reason") == "selected")
        let toggled = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20, day: "tomorrow"))
        #expect(toggled.map { $0.str("type") } == ["visible", "selection"])
        #expect(toggled[0].field("full").flatMap { toggled[0].bool($0) } == true)
        #expect(toggled[0].objects("upsert").count == 85)
        #expect(toggled[1].str("day") == "tomorrow")
        #expect(toggled[1].str("reason") == "updated")
        // Panning away clears the callout.
        let away = feed(engine, viewport("alice", -40, 100, 5, 5, day: "tomorrow"))
        #expect(away.map { $0.str("type") } == ["visible", "selection"])
        #expect(away[1].str("reason") == "not-visible")
        #expect(away[1].field("station")?.kind == .null)
    }

    @Test func badLinesGiveOneErrorEachAndUnknownTypesPassThrough() throws {
        let engine = FilterEngine()
        let out = feed(engine, [
            Array("not json".utf8),
            Array(#"{"type":"select","client":"zed","id":"K1D3"}"#.utf8),
            Array(viewport("alice", 91, 0, 10, 10).utf8),
            Array(viewport("alice", 0, 0, 0, 10).utf8),
            Array(#"{"type":"mystery","x":1}"#.utf8),
            Array(#"{"no":"type"}"#.utf8),
        ])
        #expect(out.map { $0.str("type") } == ["error", "error", "error", "error", "mystery", "error"])
        #expect(out[2].str("message") == "latitude 91.0 is outside [-90, 90]")
        #expect(out[5].str("message") == "missing required field \"type\"")
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20))
        let unknown = feed(engine, #"{"type":"select","client":"alice","id":"NOPE"}"#)
        #expect(unknown.map { $0.str("message") } == ["unknown station \"NOPE\""])
    }

    @Test func denseViewportsClusterAndZoomingSplitsThem() throws {
        let world = try TestSupport.world()
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: world))
        let wide = feed(engine, viewport("c", 40, -100, 60, 100))
        let items = wide[0].objects("upsert")
        let total = items.reduce(0) { $0 + Int($1.num("count") ?? 1) }
        let expected = world.filter { referenceVisible($0.coordinate, center: Coordinate(latitude: 40, longitude: -100), dlat: 60, dlon: 100) }.count
        #expect(expected > 500)
        #expect(total == expected)  // every station is in exactly one annotation
        #expect(items.count <= 500)
        #expect(items.contains { $0.field("cluster") != nil })
        var model = ClientModel()
        model.apply(wide[0])
        let zoomed = feed(engine, viewport("c", 40, -100, 2, 3))
        model.apply(zoomed[0])
        let zoomExpected = Set(world.filter { referenceVisible($0.coordinate, center: Coordinate(latitude: 40, longitude: -100), dlat: 2, dlon: 3) }.map(\.id))
        #expect(Set(model.items.keys) == zoomExpected)
    }

    @Test func heartbeatWithAnOlderVersionGetsTheWholeSetAgain() throws {
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        let first = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20), at: 1_000)
        #expect(first.map { $0.num("version") } == [1])
        // A pan whose answer (version 2) is then lost on the way.
        let lost = feed(engine, viewport("alice", 41.5, -107, 25, 20), at: 1_001)
        #expect(lost.map { $0.num("version") } == [2])
        let behind = #","version":1"#
        // A heartbeat still within the grace: the answer may be in flight, nothing is sent.
        #expect(feed(engine, viewport("alice", 41.5, -107, 25, 20, extra: behind), at: 1_001.1).isEmpty)
        // The client has applied version 2: nothing to do either.
        #expect(feed(engine, viewport("alice", 41.5, -107, 25, 20, extra: #","version":2"#), at: 1_003).isEmpty)
        #expect(feed(engine, viewport("alice", 41.5, -107, 25, 20), at: 1_003).isEmpty)
        // Still at version 1 a second later: the whole set again, as version 3.
        let again = feed(engine, viewport("alice", 41.5, -107, 25, 20, extra: behind), at: 1_002)
        #expect(again.count == 1)
        #expect(again.first?.num("version") == 3)
        #expect(again.first?.bool(again[0].field("full")!) == true)
        let reference = try TestSupport.onx(.today).filter {
            referenceVisible($0.coordinate, center: Coordinate(latitude: 41.5, longitude: -107), dlat: 25, dlon: 20)
        }
        #expect(Set(again[0].objects("upsert").map { $0.str("id") }) == Set(reference.map { Optional($0.id) }))
        // A filter that never saw the client (it restarted) answers the heartbeat in full, going
        // on from the client's version (never back to 1).
        let fresh = FilterEngine()
        _ = feed(fresh, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        let restarted = feed(fresh, viewport("alice", 41.5, -107, 25, 20, extra: #","version":7"#), at: 1_000)
        #expect(restarted.map { $0.num("version") } == [8])
        #expect(restarted.first?.objects("upsert").count == reference.count)
        #expect(feed(fresh, viewport("alice", 0, 0, 1, 1, extra: #","version":-1"#)).map { $0.str("message") } == ["version -1 must not be negative"])
    }

    @Test func answersThatNeverArriveAreResentLessAndLessOften() throws {
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20), at: 1_000)
        _ = feed(engine, viewport("alice", 41.5, -107, 25, 20), at: 1_001)  // version 2, never applied
        // A client stuck at version 1 sends a heartbeat every 0.5 s for 10 s.
        var resentAt: [Double] = []
        for k in 1...20 {
            let now = 1_001 + Double(k) * 0.5
            if !feed(engine, viewport("alice", 41.5, -107, 25, 20, extra: #","version":1"#), at: now).isEmpty { resentAt.append(now) }
        }
        // Waits of 0.25, 0.5, 1, 2, 4, 8 s after each resend: 5 resends in 10 s, not 20.
        #expect(resentAt == [1_001.5, 1_002, 1_003, 1_005, 1_009])
        // Once the client reports the current version, the next lost answer is resent promptly again.
        let current = feed(engine, viewport("alice", 41.5, -107, 25, 20), at: 1_011)
        #expect(current.isEmpty)
        // (versions: 1, the lost 2, resends 3-7)
        #expect(feed(engine, viewport("alice", 41.5, -107, 25, 20, extra: #","version":7"#), at: 1_011.5).isEmpty)
        #expect(feed(engine, viewport("alice", 45, -100, 25, 20), at: 1_012).map { $0.num("version") } == [8])  // lost
        #expect(feed(engine, viewport("alice", 45, -100, 25, 20, extra: #","version":7"#), at: 1_012.5).map { $0.num("version") } == [9])
    }

    @Test func aRepeatedViewportBeforeAnyDataIsAnsweredEachTime() throws {
        // A client (or a probe) whose first answer was lost re-sends its viewport: with no
        // snapshot yet, each repeat gets a full (empty) answer; with a version it is a heartbeat.
        let engine = FilterEngine()
        for k in 0..<3 {
            #expect(feed(engine, viewport("probe", 10, 10, 1, 1), at: 1_000 + Double(k)).filter { $0.str("type") == "visible" }
                .map { $0.num("version") } == [Double(k + 1)])
        }
        #expect(feed(engine, viewport("probe", 10, 10, 1, 1, extra: #","version":3"#), at: 1_004).filter { $0.str("type") == "visible" }.isEmpty)
    }

    @Test func aMissingSnapshotIsAskedForLessAndLessOften() throws {
        let engine = FilterEngine()
        var requests: [Double] = []
        for k in 0..<60 {
            let now = 1_000 + Double(k) * 0.5
            let out = feed(engine, viewport("c\(k % 3)", 10, 10, 1, 1, day: "tomorrow"), at: now)
            if out.contains(where: { $0.str("type") == "resync" }) { requests.append(now) }
        }
        // Then after 2, 4, 8, 16 s while tomorrow's snapshot does not come: 4 in 30 s, not 30.
        #expect(requests == [1_000, 1_002, 1_006, 1_014])
        // A completed snapshot (the publishers are alive) starts the backoff over.
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        #expect(feed(engine, viewport("c0", 10, 10, 1, 1, day: "tomorrow"), at: 1_030).contains { $0.str("type") == "resync" })
        #expect(!feed(engine, viewport("c0", 10, 10, 1, 1, day: "tomorrow"), at: 1_030.5).contains { $0.str("type") == "resync" })
    }

    @Test func idleClientsAreForgotten() throws {
        var options = FilterOptions()
        options.idleSeconds = 60
        let engine = FilterEngine(options: options)
        _ = feed(engine, viewport("a", 0, 0, 1, 1), at: 1_000)
        _ = feed(engine, viewport("b", 0, 0, 1, 1), at: 1_050)
        #expect(engine.clientCount == 2)
        _ = feed(engine, viewport("b", 0, 0, 1, 1), at: 1_100)
        #expect(engine.clientCount == 1)
    }

    @Test func resyncForAClientResendsTheFullSet() throws {
        let engine = FilterEngine()
        _ = feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = feed(engine, viewport("alice", 40.924, -108.0955, 25, 20))
        let out = feed(engine, #"{"type":"resync","client":"alice"}"#)
        #expect(out.count == 1)
        #expect(out[0].num("version") == 2)
        #expect(out[0].objects("upsert").count == 85)
        #expect(feed(engine, #"{"type":"resync","reason":"for the publishers"}"#).isEmpty)
    }
}
