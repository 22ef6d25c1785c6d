import Testing
@testable import IsobarCore

/// The filter's idle sweep (every 3 s here) forgets a gateway's clients only when the gateway
/// stopped leasing, and looks one by one only at clients without a gateway while every gateway
/// leases (issue 32: no per-client work for idle gateway clients).
@Suite struct FilterSweepTests {
    let base = FilterEngineTests()

    func engine() -> FilterEngine {
        var options = FilterOptions()
        options.idleSeconds = 60
        options.leaseTimeout = 30
        return FilterEngine(options: options)
    }

    func viewport(_ client: String, gateway: String?, ref: Int = 1) -> String {
        base.viewport(client, 40.924, -108.0955, 25, 20, extra: gateway.map { #","gateway":"\#($0)","ref":\#(ref)"# } ?? "")
    }

    func lease(_ gateway: String) -> String {
        var writer = JSONWriter()
        Lease(gateway: gateway, clients: 0, digest: LeaseDigest().hex).write(to: &writer)
        return String(decoding: writer.bytes.dropLast(), as: UTF8.self)
    }

    func tick(_ engine: FilterEngine, at time: Double) {
        var writer = JSONWriter()
        engine.tick(now: time, into: &writer)
    }

    func names(_ engine: FilterEngine) -> [String] { engine.clients.keys.sorted() }

    @Test func whileItsGatewayLeasesNoClientOfItIsLookedAt() {
        let engine = engine()
        _ = base.feed(engine, lease("gw"), at: 999)
        for name in ["a", "b", "c"] { _ = base.feed(engine, viewport(name, gateway: "gw"), at: 1_000) }
        _ = base.feed(engine, viewport("plain", gateway: nil), at: 1_000)
        // A lease every 3 s from 1,002 to 1,098, each followed by a sweep: the plain client is
        // looked at in the 21 sweeps up to 1,062, which finds it silent for over 60 s; a, b and c
        // in none.
        for k in 0..<33 { _ = base.feed(engine, lease("gw"), at: 1_002 + 3 * Double(k)) }
        #expect(engine.sweepLooks == 21)
        #expect(names(engine) == ["a", "b", "c"])
    }

    @Test func aLapsedGatewaysClientsGoUnlessTheySpokeThemselves() {
        let engine = engine()
        _ = base.feed(engine, viewport("a", gateway: "gw"), at: 1_000)
        _ = base.feed(engine, viewport("b", gateway: "gw"), at: 1_000)
        _ = base.feed(engine, viewport("c", gateway: "gw2"), at: 1_000)
        // Both gateways lease every 10 s up to 1,100; then only gw2.
        for k in 0...10 {
            _ = base.feed(engine, lease("gw"), at: 1_000 + 10 * Double(k))
            _ = base.feed(engine, lease("gw2"), at: 1_000 + 10 * Double(k))
        }
        let looksWhileLeasing = engine.sweepLooks
        _ = base.feed(engine, viewport("b", gateway: "gw", ref: 2), at: 1_120)  // b speaks itself
        _ = base.feed(engine, lease("gw2"), at: 1_120)
        tick(engine, at: 1_130)  // gw's lease is exactly 30 s old: all stay
        #expect(names(engine) == ["a", "b", "c"])
        _ = base.feed(engine, lease("gw2"), at: 1_130)
        tick(engine, at: 1_133)  // gw lapsed: a goes; b spoke at 1,120
        #expect(names(engine) == ["b", "c"])
        _ = base.feed(engine, lease("gw2"), at: 1_140)
        tick(engine, at: 1_150)  // b's own 30 s are up only after 1,150
        #expect(names(engine) == ["b", "c"])
        _ = base.feed(engine, lease("gw2"), at: 1_150)
        tick(engine, at: 1_153)
        #expect(names(engine) == ["c"])
        tick(engine, at: 1_156)
        // While leasing: the one sweep at 1,000 before any lease looked at a (and at b and c on
        // their first lines, not yet swept). After: a and b at 1,133, b at 1,140, 1,150 and 1,153.
        #expect(looksWhileLeasing == 1)
        #expect(engine.sweepLooks - looksWhileLeasing == 5)
        #expect(engine.gateways["gw"] == nil)  // it hosts nobody and stopped leasing
    }

    @Test func aPlainClientThatJoinsAGatewayIsNoLongerLookedAtAndALeaveForgetsIt() {
        let engine = engine()
        _ = base.feed(engine, lease("gw"), at: 999)
        _ = base.feed(engine, viewport("p", gateway: nil), at: 1_000)
        _ = base.feed(engine, viewport("q", gateway: nil), at: 1_000)
        tick(engine, at: 1_003)  // looks at p and q
        _ = base.feed(engine, lease("gw"), at: 1_004)
        _ = base.feed(engine, viewport("p", gateway: "gw"), at: 1_004)
        tick(engine, at: 1_006)  // looks at q
        _ = base.feed(engine, #"{"type":"leave","client":"q"}"#, at: 1_007)
        for k in 0..<10 { _ = base.feed(engine, lease("gw"), at: 1_009 + 3 * Double(k)) }
        #expect(engine.sweepLooks == 3)
        #expect(names(engine) == ["p"])
        #expect(engine.clientsWithoutGateway.isEmpty)
    }
}
