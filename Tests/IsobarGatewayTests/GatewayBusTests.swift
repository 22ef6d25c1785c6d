import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// What the gateway says on the bus and relays from it, checked by a bus client that plays the
    /// filter and formatter (broker + gateway processes, real sockets).
    @Suite struct GatewayBusTests {
        static let view = #"{"type":"viewport","center":{"latitude":40,"longitude":-100},"span":{"latitudeDelta":2,"longitudeDelta":3}}"#

        @Test func viewportsRelayLeaseDigestTallyResendResyncAndLeave() async throws {
            let gw = try await GatewayAlone()
            try gw.waitForBus()

            let carol = WSTestClient(port: gw.port, query: "?client=carol")
            carol.send(Self.view)
            let first = gw.object(gw.waitFor(topic: Topic.of(type: "viewport", client: "carol"), timeout: 15))
            #expect(first?["gateway"] as? String == "gw-test")
            #expect((first?["ref"] as? NSNumber)?.intValue == 1)
            #expect(first?["version"] == nil)

            // Relay: exactly carol's topics; a batch payload is split into frames.
            gw.bus.publish(#"{"type":"annotations","client":"carol2","version":1,"full":true,"upsert":[],"remove":[]}"#)
            gw.bus.publish(lines: [
                Array(#"{"type":"annotations","client":"carol","version":1,"full":true,"ageSeconds":12,"upsert":[{"id":"A","coordinate":{"latitude":40,"longitude":-100},"title":"1°"}],"remove":[]}"#.utf8),
                Array(#"{"type":"annotations","client":"carol","version":2,"full":false,"upsert":[],"remove":["A"]}"#.utf8),
            ])
            let one = carol.next(timeout: 15) { $0["type"] as? String == "annotations" }
            let two = carol.next(timeout: 15) { $0["type"] as? String == "annotations" }
            #expect((one?["version"] as? NSNumber)?.intValue == 1 && one?["client"] as? String == "carol")
            #expect((two?["version"] as? NSNumber)?.intValue == 2)
            gw.bus.publish(#"{"type":"callout","client":"carol","id":"A","clear":true,"reason":"cleared"}"#)
            #expect(carol.next(timeout: 15)?["type"] as? String == "callout")
            gw.bus.publish(#"{"type":"status","day":"today","state":"ok"}"#)
            #expect(carol.next(timeout: 15)?["type"] as? String == "status")

            // The lease carries one client with ref 1 and version 2.
            let expected = LeaseDigest(value: LeaseDigest.entry(client: "carol", ref: 1, version: 2)).hex
            let lease = gw.object(gw.waitFor(topic: "lease", from: gw.seenCount, timeout: 15) { $0.contains(expected) })
            #expect((lease?["clients"] as? NSNumber)?.intValue == 1)
            #expect(lease?["digest"] as? String == expected)

            // A tally with resend re-publishes the viewport (same ref, the version relayed).
            var mark = gw.seenCount
            gw.publishTally(today: "today-x", resend: true)
            let resent = gw.object(gw.waitFor(topic: Topic.of(type: "viewport", client: "carol"), from: mark, timeout: 15))
            #expect((resent?["ref"] as? NSNumber)?.intValue == 1)
            #expect((resent?["version"] as? NSNumber)?.intValue == 2)
            // A second one within the lease interval is ignored... (0.2 s here), a later one is not.
            try? await Task.sleep(for: .seconds(0.3))

            // Another client's resync is not for us; a bare resync is.
            mark = gw.seenCount
            gw.bus.publish(#"{"type":"resync","client":"dave","reason":"gap"}"#)
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: "carol"), from: mark, timeout: 1) == nil)
            gw.bus.publish(#"{"type":"resync","reason":"filter started"}"#)
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: "carol"), from: mark, timeout: 15) != nil)

            // A new viewport counts up; the frame's own version wins over the relayed one.
            mark = gw.seenCount
            carol.send(#"{"type":"viewport","center":{"latitude":41,"longitude":-100},"span":{"latitudeDelta":2,"longitudeDelta":3},"version":7}"#)
            let second = gw.object(gw.waitFor(topic: Topic.of(type: "viewport", client: "carol"), from: mark, timeout: 15))
            #expect((second?["ref"] as? NSNumber)?.intValue == 2 && (second?["version"] as? NSNumber)?.intValue == 7)
            carol.send(#"{"type":"select","id":"A"}"#)
            #expect(gw.object(gw.waitFor(topic: Topic.of(type: "select", client: "carol"), from: mark, timeout: 15))?["id"] as? String == "A")

            // Closing the WebSocket publishes leave, and the lease is empty again.
            mark = gw.seenCount
            carol.close()
            #expect(gw.object(gw.waitFor(topic: Topic.of(type: "leave", client: "carol"), from: mark, timeout: 15))?["client"] as? String == "carol")
            #expect(gw.waitFor(topic: "lease", from: mark, timeout: 15) { $0.contains(#""clients":0"#) && $0.contains("0000000000000000") } != nil)
            await gw.stop()
        }

        /// Two shards that ask at once (both on a host whose link came back) each get their own
        /// clients' viewports resent: the once-per-lease-interval limit is per shard.
        @Test func tallyResendsArePerShard() async throws {
            let gw = try await GatewayAlone()
            try gw.waitForBus()
            // One client in each half of the partitions (shards 0/2 and 1/2).
            let names = (0..<64).map { "shardling\($0)" }
            guard let even = names.first(where: { ClientPartition.of($0) % 2 == 0 }),
                  let odd = names.first(where: { ClientPartition.of($0) % 2 == 1 }),
                  let shard0 = Shard(index: 0, count: 2), let shard1 = Shard(index: 1, count: 2) else {
                Issue.record("no names in both halves"); return
            }
            let clients = [even, odd].map { WSTestClient(port: gw.port, query: "?client=\($0)") }
            for client in clients { client.send(Self.view) }
            for name in [even, odd] { #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: name), timeout: 15) != nil) }

            let mark = gw.seenCount
            gw.publishTally(today: "today-x", resend: true, shard: shard0)
            gw.publishTally(today: "today-x", resend: true, shard: shard1)
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: even), from: mark, timeout: 15) != nil, "shard 0's client resent")
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: odd), from: mark, timeout: 15) != nil, "shard 1's client resent")
            // Each shard's resend holds only its own client.
            #expect(gw.lines(topic: Topic.of(type: "viewport", client: even), from: mark).count == 1)
            #expect(gw.lines(topic: Topic.of(type: "viewport", client: odd), from: mark).count == 1)
            for client in clients { client.close() }
            await gw.stop()
        }

        /// A fetch writes `status` only when something happens: a page opened later gets the last
        /// one of each day on connecting (so it can credit the feeds its `formats` name).
        @Test func aNewPageGetsTheLastStatusOfEachDay() async throws {
            let gw = try await GatewayAlone()
            try gw.waitForBus()
            let carol = WSTestClient(port: gw.port, query: "?client=carol")
            carol.send(Self.view)
            #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: "carol"), timeout: 15) != nil)
            for line in [#"{"type":"status","day":"tomorrow","state":"ok","url":"t","formats":["openmeteo"]}"#,
                         #"{"type":"status","day":"today","state":"ok","url":"a","formats":["metar"]}"#,
                         #"{"type":"status","day":"today","state":"ok","url":"b","formats":["metar","nws"]}"#] {
                gw.bus.publish(line)
                #expect(carol.next(timeout: 15) { $0["type"] as? String == "status" } != nil)
            }
            let dave = WSTestClient(port: gw.port, query: "?client=dave")
            defer { dave.close() }
            let first = dave.next(timeout: 15) { $0["type"] as? String == "status" }
            let second = dave.next(timeout: 15) { $0["type"] as? String == "status" }
            #expect(first?["day"] as? String == "today" && first?["url"] as? String == "b" && first?["formats"] as? [String] == ["metar", "nws"])
            #expect(second?["day"] as? String == "tomorrow" && second?["formats"] as? [String] == ["openmeteo"])
            carol.close()
            await gw.stop()
        }

        @Test func idleClientsCauseNoBusTraffic() async throws {
            let gw = try await GatewayAlone()
            try gw.waitForBus()
            let clients = (0..<5).map { n in WSTestClient(port: gw.port, query: "?client=idle\(n)") }
            for client in clients { client.send(Self.view) }
            for n in 0..<5 { #expect(gw.waitFor(topic: Topic.of(type: "viewport", client: "idle\(n)"), timeout: 15) != nil) }
            let mark = gw.seenCount
            try? await Task.sleep(for: .seconds(2))
            let topics = gw.lines(topic: "lease", from: mark).count
            let all = gw.seenCount - mark
            #expect(all == topics, "only leases while idle, saw \(all - topics) other messages")
            // One lease per 0.2 s: never more than 11 in 2 s; fewer only when the machine is loaded
            // (at least one shows the leases still go).
            #expect((1...11).contains(topics), "one lease per 0.2 s, saw \(topics) in 2 s")
            await gw.stop()
        }

        @Test func healthzFollowsTheFiltersTally() async throws {
            let gw = try await GatewayAlone()
            let before = try HTTPProbe.get(port: gw.port, path: "/healthz")
            #expect(before.status == 503)
            #expect(before.body.contains("no tally from the filter"))
            try gw.waitForBus()
            // A tally without snapshots: 503 (tallies keep coming so the answer is not a stale one).
            let empty = gw.pollHealthz(timeout: 15, publishing: .tally(today: nil)) { $0.body.contains("the filter has no snapshot yet") }
            #expect(empty?.status == 503, "\(String(describing: empty))")
            // A tally with one: 200, and once tallies stop, 503 after 3 lease intervals (0.6 s), not before.
            let healthy = gw.pollHealthz(timeout: 15, publishing: .tally(today: "today-x")) { $0.status == 200 }
            #expect(healthy != nil)
            let lastTally = gw.lastTallyAt
            var early: HTTPProbe.Reply?
            let stale = gw.pollHealthz(timeout: 15, publishing: .nothing) { reply in
                if reply.status != 200, Date().timeIntervalSince(lastTally) < 0.6 { early = reply }
                return reply.status == 503
            }
            #expect(stale?.body.contains("no tally from the filter for") == true, "\(String(describing: stale))")
            #expect(early == nil, "stale before 3 lease intervals: \(String(describing: early))")
            await gw.stop()
        }

        @Test func sigtermClosesWebSocketsWithGoingAwayAndExitsZero() async throws {
            let gw = try await GatewayAlone()
            try gw.waitForBus()
            let client = WSTestClient(port: gw.port, query: "?client=erin")
            client.send("{}")
            #expect(client.next(timeout: 15)?["type"] as? String == "error")
            let mark = gw.seenCount
            gw.gateway.signal(SIGTERM)
            #expect(client.waitForEnd(timeout: 15))
            #expect(client.closeCode == 1001)
            #expect(await gw.gateway.waitForExit(timeout: .seconds(10)) == .exited(0), "\(gw.gateway.stderrText)")
            #expect(gw.waitFor(topic: Topic.of(type: "leave", client: "erin"), from: mark, timeout: 15) != nil)
            await gw.stop()
        }
    }
}
