import Testing
@testable import IsobarCore

/// Client names across gateways (issue 27, item 4): a second gateway on the bus claiming a name
/// another gateway hosts is refused while that gateway leases; the holder's set is untouched.
@Suite struct ClientClaimTests {
    let base = FilterEngineTests()

    func viewport(_ client: String, gateway: String?, lat: Double) -> String {
        base.viewport(client, lat, -108.0955, 25, 20, extra: gateway.map { #","gateway":"\#($0)","ref":1"# } ?? "")
    }

    func lease(_ gateway: String) -> String {
        var writer = JSONWriter()
        Lease(gateway: gateway, clients: 1, digest: LeaseDigest().hex).write(to: &writer)
        return String(decoding: writer.bytes.dropLast(), as: UTF8.self)
    }

    @Test func aNameHeldOnOneGatewayIsRefusedToAnotherWhileItLeases() throws {
        let engine = FilterEngine()
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        var victim = ClientModel()
        for m in base.feed(engine, viewport("alice", gateway: "gw-a", lat: 40.924), at: 1_000) { victim.apply(m) }
        #expect(victim.items.count == 85)
        _ = base.feed(engine, lease("gw-a"), at: 1_001)
        // The attacker's gateway claims the name: one error for that name, nothing sent as a set.
        let claim = base.feed(engine, viewport("alice", gateway: "gw-b", lat: -30), at: 1_002)
        #expect(claim.map { $0.str("type") } == ["error"])
        #expect(claim.first?.str("client") == "alice")
        #expect(claim.first?.str("message") == #"client name "alice" is in use on another gateway; connect with another name"#)
        #expect(engine.claimsRefused == 1)
        // A plain bus client may not take it either.
        #expect(base.feed(engine, viewport("alice", gateway: nil, lat: -30), at: 1_002).map { $0.str("type") } == ["error"])
        // The victim's own gateway goes on as before: its pan is a diff from what it holds.
        for m in base.feed(engine, viewport("alice", gateway: "gw-a", lat: 41), at: 1_003) { victim.apply(m) }
        #expect(victim.gaps == 0)
        let fresh = FilterEngine()
        _ = base.feed(fresh, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        var reference = ClientModel()
        for m in base.feed(fresh, viewport("alice", gateway: "gw-a", lat: 41)) { reference.apply(m) }
        #expect(Set(victim.items.keys) == Set(reference.items.keys))
        // Once gw-a stops leasing (gone), the name is free for gw-b after the grace.
        let taken = base.feed(engine, viewport("alice", gateway: "gw-b", lat: -30), at: 1_003 + engine.options.claimGrace)
        #expect(taken.map { $0.str("type") } == ["visible"])
    }

    @Test func aNameFreedByLeaveIsAvailableAtOnce() throws {
        let engine = FilterEngine()
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = base.feed(engine, viewport("alice", gateway: "gw-a", lat: 40.924), at: 1_000)
        _ = base.feed(engine, lease("gw-a"), at: 1_000)
        _ = base.feed(engine, #"{"type":"leave","client":"alice","gateway":"gw-a"}"#, at: 1_001)
        #expect(base.feed(engine, viewport("alice", gateway: "gw-b", lat: 40.924), at: 1_001).map { $0.str("type") } == ["visible"])
    }
}
