import Testing
@testable import IsobarCore

/// Gateways keep their clients known with one lease per interval, and lost answers or viewports
/// are found by comparing digests (PROTOCOL.md, "Gateways").
@Suite struct FilterGatewayTests {
    let base = FilterEngineTests()

    func gatewayViewport(_ client: String, ref: Int, lat: Double = 40.924, version: Int? = nil) -> String {
        base.viewport(client, lat, -108.0955, 25, 20, extra: #","gateway":"gw","ref":\#(ref)"# + (version.map { #","version":\#($0)"# } ?? ""))
    }

    func lease(clients: Int, digest: LeaseDigest) -> String {
        var writer = JSONWriter()
        Lease(gateway: "gw", clients: clients, digest: digest.hex).write(to: &writer)
        return String(decoding: writer.bytes.dropLast(), as: UTF8.self)
    }

    func tally(_ out: [JSONObject]) throws -> Tally {
        try Tally(from: try #require(out.first { $0.str("type") == "tally" }))
    }

    @Test func theDigestIsTheXorOfEachClientsEntry() {
        var digest = LeaseDigest()
        digest.toggle(LeaseDigest.entry(client: "a", ref: 1, version: 3))
        digest.toggle(LeaseDigest.entry(client: "b", ref: 2, version: 0))
        var other = LeaseDigest()
        other.toggle(LeaseDigest.entry(client: "b", ref: 2, version: 0))
        other.toggle(LeaseDigest.entry(client: "a", ref: 1, version: 3))
        #expect(digest == other)
        // FNV-1a 64 of "a\n1\n3", computed by hand from the published constants.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array("a\n1\n3".utf8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        #expect(LeaseDigest.entry(client: "a", ref: 1, version: 3) == hash)
        #expect(LeaseDigest(hex: digest.hex) == digest)
        #expect(LeaseDigest(hex: "xyz") == nil)
    }

    @Test func aLeaseThatAgreesGetsAQuietTally() throws {
        let engine = FilterEngine()
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        #expect(base.feed(engine, gatewayViewport("a", ref: 1), at: 1_000).count == 1)  // version 1
        _ = base.feed(engine, gatewayViewport("b", ref: 1), at: 1_000)                 // version 1
        var digest = LeaseDigest()
        digest.toggle(LeaseDigest.entry(client: "a", ref: 1, version: 1))
        digest.toggle(LeaseDigest.entry(client: "b", ref: 1, version: 1))
        let answer = try tally(base.feed(engine, lease(clients: 2, digest: digest), at: 1_002))
        #expect(answer == Tally(gateway: "gw", clients: 2, digest: digest.hex, resend: false,
                                today: engine.snapshot(for: .today)?.id, tomorrow: nil, acceptance: AcceptanceReport()))
    }

    @Test func aLostAnswerIsFoundByTheDigestAndRepairedByOneResend() throws {
        let engine = FilterEngine()
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = base.feed(engine, gatewayViewport("a", ref: 1), at: 1_000)            // version 1 arrives
        let lost = base.feed(engine, gatewayViewport("a", ref: 2, lat: 47), at: 1_001)   // version 2 is lost
        #expect(lost.map { $0.num("version") } == [2])
        var gatewayView = LeaseDigest()
        gatewayView.toggle(LeaseDigest.entry(client: "a", ref: 2, version: 1))
        // Within the grace the difference may be in flight: no resend.
        #expect(try tally(base.feed(engine, lease(clients: 1, digest: gatewayView), at: 1_001.2)).resend == false)
        #expect(try tally(base.feed(engine, lease(clients: 1, digest: gatewayView), at: 1_002)).resend == true)
        // At most one request per resend interval.
        #expect(try tally(base.feed(engine, lease(clients: 1, digest: gatewayView), at: 1_002.5)).resend == false)
        // The gateway resends the viewport with the version it holds: the filter sends the set again.
        let repaired = base.feed(engine, gatewayViewport("a", ref: 2, lat: 47, version: 1), at: 1_002.6)
        #expect(repaired.map { $0.num("version") } == [3])
        var fixed = LeaseDigest()
        fixed.toggle(LeaseDigest.entry(client: "a", ref: 2, version: 3))
        let after = try tally(base.feed(engine, lease(clients: 1, digest: fixed), at: 1_004))
        #expect(after.resend == false)
        #expect(after.digest == fixed.hex)
    }

    @Test func aRestartedFilterAsksForEveryViewportAndClientsKeepTheirVersions() throws {
        let engine = FilterEngine()  // knows nothing of the gateway's 2 clients
        var digest = LeaseDigest()
        digest.toggle(LeaseDigest.entry(client: "a", ref: 4, version: 9))
        digest.toggle(LeaseDigest.entry(client: "b", ref: 1, version: 2))
        let first = try tally(base.feed(engine, lease(clients: 2, digest: digest), at: 1_000))
        #expect(first.resend && first.clients == 0 && first.today == nil)
        // The gateway resends; the filter has no data yet and keeps both maps as they are.
        #expect(base.feed(engine, gatewayViewport("a", ref: 4, version: 9), at: 1_000.1).allSatisfy { $0.str("type") != "visible" })
        #expect(base.feed(engine, gatewayViewport("b", ref: 1, version: 2), at: 1_000.1).allSatisfy { $0.str("type") != "visible" })
        // Both sides agree now, though nothing was sent.
        #expect(try tally(base.feed(engine, lease(clients: 2, digest: digest), at: 1_002)).resend == false)
        let data = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)), at: 1_003)
        #expect(Set(data.filter { $0.str("type") == "visible" }.map { "\($0.str("client") ?? "")\(Int($0.num("version") ?? 0))" }) == ["a10", "b3"])
    }

    @Test func gatewayClientsLiveByTheLeaseAndLeaveAtOnce() throws {
        var options = FilterOptions()
        options.idleSeconds = 60
        options.leaseTimeout = 30
        let engine = FilterEngine(options: options)
        _ = base.feed(engine, gatewayViewport("a", ref: 1), at: 1_000)
        _ = base.feed(engine, gatewayViewport("b", ref: 1), at: 1_000)
        _ = base.feed(engine, base.viewport("plain", 0, 0, 1, 1), at: 1_000)
        // The gateway leases every 10 s for 200 s; its idle clients send nothing and stay.
        for k in 1...20 {
            _ = base.feed(engine, lease(clients: 2, digest: LeaseDigest()), at: 1_000 + Double(k) * 10)
        }
        #expect(engine.clientCount == 2)  // the plain client idled out; a and b did not
        _ = base.feed(engine, #"{"type":"leave","client":"a","gateway":"other"}"#, at: 1_201)
        #expect(engine.clientCount == 2)  // a leave from a gateway that no longer hosts it is ignored
        _ = base.feed(engine, #"{"type":"leave","client":"a","gateway":"gw"}"#, at: 1_201)
        #expect(engine.clientCount == 1)
        // The gateway stops leasing: its clients go after the lease timeout.
        var writer = JSONWriter()
        engine.tick(now: 1_229, into: &writer)
        #expect(engine.clientCount == 1)
        engine.tick(now: 1_232, into: &writer)
        #expect(engine.clientCount == 0)
    }
}
