import Testing
@testable import IsobarCore

/// Filter shards (PROTOCOL.md, "Filter shards"): a client's partition, the topics that carry it,
/// what each shard subscribes to and answers, and the per-partition lease check.
@Suite struct ShardTests {
    let base = FilterEngineTests()

    @Test func aClientsPartitionIsFNV1a64OfItsNameModulo64() {
        // Values computed independently (Python, from the published FNV-1a 64 constants).
        #expect(ClientPartition.of("alice") == 7)
        #expect(ClientPartition.of("bob") == 20)
        #expect(ClientPartition.of("carol") == 50)
        #expect(ClientPartition.of("dave") == 63)
        #expect(ClientPartition.of("web-3f2a9c1d") == 29)
        #expect(ClientPartition.of("é") == 1)
        #expect(ClientPartition.label(7) == "07")
        #expect(ClientPartition.label(63) == "63")
    }

    @Test func clientToFilterTopicsCarryThePartition() {
        #expect(Topic.of(type: "viewport", client: "alice") == "viewport/07/alice")
        #expect(Topic.of(type: "select", client: "bob") == "select/20/bob")
        #expect(Topic.of(type: "leave", client: "dave") == "leave/63/dave")
        for type in ["nearest", "search", "favorite", "detail"] {
            #expect(Topic.of(type: type, client: "carol") == "\(type)/50/carol")
        }
        // Everything else keeps type/client; a resync is for every shard and the publishers.
        #expect(Topic.of(type: "annotations", client: "alice") == "annotations/alice")
        #expect(Topic.of(type: "resync", client: "alice") == "resync/alice")
        #expect(Topic.of(type: "viewport", client: nil) == "viewport")
        #expect(Topic.of(type: "viewport", client: "") == "viewport")
        var deriver = TopicDeriver()
        func derived(_ text: String) -> String? {
            let ok = Array(text.utf8).withUnsafeBytes { deriver.derive($0) }
            return ok ? String(decoding: deriver.topic, as: UTF8.self) : nil
        }
        #expect(derived(base.viewport("alice", 40, -100, 1, 1)) == "viewport/07/alice")
        // The partition is of the name, not of how the line escapes it.
        #expect(derived(#"{"client":"al\u0069ce","type":"vi\u0065wport"}"#) == "viewport/07/alice")
        #expect(derived(#"{"type":"visible","client":"alice"}"#) == "visible/alice")
        #expect(derived(#"{"type":"selection","client":"alice"}"#) == "selection/alice")
    }

    @Test func shardsParseOwnAndSubscribe() {
        #expect(Shard(parsing: "1/4") == Shard(index: 1, count: 4))
        for bad in ["4/4", "0/0", "0/65", "-1/2", "1", "a/b", "1/2/3", ""] { #expect(Shard(parsing: bad) == nil, "\(bad)") }
        #expect(Shard(parsing: "0/64") != nil)
        let shard = Shard(index: 1, count: 4)!
        #expect(shard.partitions == Array(stride(from: 1, to: 64, by: 4)))
        #expect(shard.owns(client: "dave") == false && Shard(index: 3, count: 4)!.owns(client: "dave"))
        let topics = shard.subscriptions(["station", "viewport/", "select/", "resync", "lease"])
        #expect(topics.count == 3 + 2 * 16)
        #expect(Array(topics.prefix(3)) == ["station", "viewport/01/", "viewport/05/"])
        #expect(topics.contains("select/61/") && !topics.contains("viewport/") && !topics.contains("viewport/00/"))
        #expect(topics.suffix(2) == ["resync", "lease"])
        #expect(Shard.whole.subscriptions(FilterEngine.subscriptions) == FilterEngine.subscriptions)
        // Every partition is owned by exactly one shard of a layout.
        for count in [1, 2, 3, 4, 7, 64] {
            let owners = (0..<64).map { p in (0..<count).filter { Shard(index: $0, count: count)!.owns(partition: p) }.count }
            #expect(owners.allSatisfy { $0 == 1 }, "\(count) shards")
        }
    }

    /// The cross-check: N shards fed the whole bus's traffic answer exactly what one filter
    /// answers, each client by exactly one shard.
    @Test func shardsTogetherAnswerExactlyWhatOneFilterAnswers() throws {
        let stations = try TestSupport.world()
        let snapshot = TestSupport.snapshotLines(day: .today, stations: stations)
        var random = TestSupport.Random(seed: 15)
        var traffic: [String] = []
        let names = (0..<40).map { "client-\($0)" }
        for round in 0..<6 {
            for name in names {
                let lat = random.uniform(-60...70), lon = random.uniform(-180...180)
                traffic.append(base.viewport(name, lat, lon, random.uniform(1...40), random.uniform(1...60), extra: #","limit":40"#))
                if round == 2 { traffic.append(#"{"type":"resync","client":"\#(name)"}"#) }
            }
        }
        traffic.append(#"{"type":"select","client":"client-3","id":"nope"}"#)
        traffic.append(#"{"type":"viewport","center":{"latitude":1,"longitude":1},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#)
        func answers(_ shard: Shard) -> [String] {
            var options = FilterOptions()
            options.shard = shard
            let engine = FilterEngine(options: options)
            _ = base.feed(engine, snapshot)
            return traffic.flatMap { line in base.feed(engine, line).map { String(decoding: $0.rawBytes, as: UTF8.self) } }
        }
        let whole = answers(.whole)
        #expect(whole.count > 40 * 6)
        for count in [2, 3, 4] {
            let shards = (0..<count).map { answers(Shard(index: $0, count: count)!) }
            let together = shards.flatMap { $0 }.sorted()
            #expect(together.elementsEqual(whole.sorted()), "\(count) shards differ from one filter: \(together.count) lines vs \(whole.count)")
            for (index, lines) in shards.enumerated() {
                let clients = Set(lines.compactMap { try? JSONObject(parsing: $0).str("client") })
                #expect(clients.allSatisfy { Shard(index: index, count: count)!.owns(client: $0) })
            }
            // The client-less viewport's error is reported once, by shard 0.
            #expect(shards[0].contains { $0.contains(#""type":"error""#) && !$0.contains(#""client""#) })
        }
    }

    func lease(_ parts: [Lease.Part]?, clients: Int = 0, digest: LeaseDigest = LeaseDigest()) -> String {
        var writer = JSONWriter()
        Lease(gateway: "gw", clients: clients, digest: digest.hex, partitions: parts).write(to: &writer)
        return String(decoding: writer.bytes.dropLast(), as: UTF8.self)
    }

    @Test func eachShardChecksOnlyItsPartitionsOfALease() throws {
        var options = FilterOptions()
        options.shard = Shard(index: 1, count: 2)!  // owns odd partitions: alice (7), not bob (20)
        let engine = FilterEngine(options: options)
        _ = base.feed(engine, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        let gw = #","gateway":"gw","ref":1"#
        #expect(base.feed(engine, base.viewport("alice", 40.924, -108.0955, 25, 20, extra: gw), at: 1_000).count == 1)
        #expect(base.feed(engine, base.viewport("bob", 40.924, -108.0955, 25, 20, extra: gw), at: 1_000).count == 0)
        let alice = LeaseDigest(value: LeaseDigest.entry(client: "alice", ref: 1, version: 1))
        let bob = LeaseDigest(value: LeaseDigest.entry(client: "bob", ref: 1, version: 1))
        var total = alice
        total.toggle(bob.value)
        func tally(_ line: String, at time: Double) throws -> Tally {
            try Tally(from: try #require(base.feed(engine, line, at: time).first { $0.str("type") == "tally" }))
        }
        // Bob's share is wrong (shard 0's business): this shard agrees.
        let bobWrong = lease([Lease.Part(partition: 7, clients: 1, digest: alice), Lease.Part(partition: 20, clients: 1, digest: LeaseDigest(value: 42))],
                             clients: 2, digest: total)
        let quiet = try tally(bobWrong, at: 1_002)
        #expect(quiet == Tally(gateway: "gw", clients: 1, digest: alice.hex, resend: false,
                               today: engine.snapshot(for: .today)?.id, tomorrow: nil, shard: Shard(index: 1, count: 2)!, acceptance: AcceptanceReport()))
        // Alice's share is wrong: a resend, named for this shard.
        let aliceWrong = lease([Lease.Part(partition: 7, clients: 1, digest: LeaseDigest(value: 42)), Lease.Part(partition: 20, clients: 1, digest: bob)],
                               clients: 2, digest: total)
        #expect(try tally(aliceWrong, at: 1_004).resend == true)
        // Without partitions a shard cannot check, and never asks.
        #expect(try tally(lease(nil, clients: 9, digest: LeaseDigest(value: 1)), at: 1_010).resend == false)
        // An unsharded filter checks the whole lease (bob's wrong total counts).
        let whole = FilterEngine()
        _ = base.feed(whole, TestSupport.snapshotLines(day: .today, stations: try TestSupport.onx(.today)))
        _ = base.feed(whole, base.viewport("alice", 40.924, -108.0955, 25, 20, extra: gw), at: 1_000)
        let wrongTotal = lease([Lease.Part(partition: 7, clients: 1, digest: alice)], clients: 2, digest: total)
        let answer = try Tally(from: try #require(base.feed(whole, wrongTotal, at: 1_002).first))
        #expect(answer.resend == true && answer.shard == .whole)
    }

    @Test func leasesAndTalliesRoundTripAndRefuseBadPartitions() throws {
        let line = lease([Lease.Part(partition: 7, clients: 1, digest: LeaseDigest(value: 0xabc))], clients: 1, digest: LeaseDigest(value: 0xabc))
        #expect(line == #"{"type":"lease","gateway":"gw","clients":1,"digest":"0000000000000abc","partitions":[{"partition":7,"clients":1,"digest":"0000000000000abc"}]}"#)
        let parsed = try Lease(from: JSONObject(parsing: line))
        #expect(parsed.partitions == [Lease.Part(partition: 7, clients: 1, digest: LeaseDigest(value: 0xabc))])
        #expect(try Lease(from: JSONObject(parsing: lease(nil))).partitions == nil)
        let head = #"{"type":"lease","gateway":"gw","clients":1,"digest":"0000000000000abc","partitions":"#
        for (bad, message) in [("7", "must be an array"), ("[7]", "is an object"), (#"[{"partition":64,"clients":1,"digest":"0000000000000abc"}]"#, "0 to 63"),
                               (#"[{"partition":1,"clients":-1,"digest":"0000000000000abc"}]"#, "non-negative"),
                               (#"[{"partition":1,"clients":1,"digest":"abc"}]"#, "16 hex digits")] {
            #expect(throws: MessageError.self) { try Lease(from: JSONObject(parsing: head + bad + "}")) }
            do {
                _ = try Lease(from: JSONObject(parsing: head + bad + "}"))
            } catch let error as MessageError {
                #expect(error.message.contains(message), "\(bad): \(error.message)")
            }
        }
        var writer = JSONWriter()
        Tally(gateway: "gw", clients: 1, digest: "0000000000000abc", resend: true, today: nil, tomorrow: nil, shard: Shard(index: 2, count: 3)!).write(to: &writer)
        let tally = String(decoding: writer.bytes.dropLast(), as: UTF8.self)
        #expect(tally == #"{"type":"tally","gateway":"gw","clients":1,"digest":"0000000000000abc","resend":true,"today":null,"tomorrow":null,"shard":"2/3"}"#)
        #expect(try Tally(from: JSONObject(parsing: tally)).shard == Shard(index: 2, count: 3))
        #expect(throws: MessageError.self) { try Tally(from: JSONObject(parsing: #"{"type":"tally","gateway":"gw","shard":"3/3"}"#)) }
    }
}
