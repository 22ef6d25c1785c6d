#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

extension GatewayProcessTests {
    /// `isobar up --sample --filters 2`: two filter shards, each serving the WebSocket clients of its
    /// partitions (PROTOCOL.md, "Filter shards"), checked against the brute force; a shard killed
    /// with `kill -9` while its clients pan: every client right within 2 s of the shard's return.
    @Suite struct ShardedPipelineTests {
        /// The pid of the process running filter shard NAME (`filter-0`, ...) that `up` (pid `up`) runs.
        static func filterPid(named name: String, under up: pid_t) -> pid_t? {
            ProcessHarness.services(under: up)[name].flatMap(ProcessHarness.stagePID(ofService:))
        }

        struct Map {
            let name: String
            let client: WSTestClient
            var held = HeldAnnotations()
            var expected: Set<String> = []
        }

        @Test func twoShardsServeTheirOwnClientsAndAKilledShardsClientsRecover() async throws {
            let pipeline = try await GatewayPipelineTests.Pipeline.start(extra: ["--filters", "2"])
            try await pipeline.waitUntilHealthy()  // healthy only once both shards answer leases with data
            let today = try Reference.records("today")
            let recorder = try BusRecorder(pub: pipeline.pub, sub: pipeline.sub, topics: ["viewport/", "lease", "tally"])
            try #require(recorder.waitFor(prefix: "tally", timeout: 10) != nil, "no tally on the test's bus client")

            // Three clients of each shard.
            let shards = [Shard(index: 0, count: 2)!, Shard(index: 1, count: 2)!]
            var names: [String] = []
            for n in 0..<100 where names.count < 6 {
                let name = "map-\(n)"
                let shard = shards[ClientPartition.of(name) % 2]
                if names.filter({ shard.owns(client: $0) }).count < 3 { names.append(name) }
            }
            var maps = names.map { Map(name: $0, client: WSTestClient(port: pipeline.port, query: "?client=\($0)")) }

            func pan(_ index: Int, _ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double) {
                maps[index].expected = Reference.visible(today, lat: lat, lon: lon, dlat: dlat, dlon: dlon)
                maps[index].client.send(Reference.viewport(lat: lat, lon: lon, dlat: dlat, dlon: dlon))
            }
            /// Applies frames until every client holds its expected set; the seconds it took, or nil.
            func converge(timeout: Double) -> Double? {
                let start = Date()
                let deadline = start.addingTimeInterval(timeout)
                for index in maps.indices {
                    while Set(maps[index].held.titles.keys) != maps[index].expected {
                        guard let frame = maps[index].client.next(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return nil }
                        maps[index].held.apply(frame)
                    }
                }
                return Date().timeIntervalSince(start)
            }
            func wrong() -> [String] {
                maps.filter { Set($0.held.titles.keys) != $0.expected }.map { "\($0.name) holds \($0.held.titles.count) of \($0.expected.count)" }
            }

            for index in maps.indices { pan(index, 40.924, -108.0955, 25, 20) }
            try #require(converge(timeout: 60) != nil, "initial region: \(wrong())")
            #expect(maps.allSatisfy { $0.expected.count == 85 })

            var random = SystemRandomNumberGenerator()
            for round in 0..<5 {
                for index in maps.indices {
                    pan(index, Double.random(in: 28...50, using: &random), Double.random(in: -122 ... -78, using: &random),
                        Double.random(in: 2...25, using: &random), Double.random(in: 2...30, using: &random))
                }
                #expect(converge(timeout: 30) != nil, "round \(round): \(wrong())")
            }

            // Every viewport on the bus carried its client's partition, and each shard's tally
            // counts exactly its own three clients and agrees with the lease.
            let viewports = recorder.entries().filter { $0.topic.hasPrefix("viewport/") }
            #expect(viewports.count >= 36)
            for entry in viewports {
                let client = BusRecorder.object(entry.line)["client"] as? String ?? ""
                #expect(entry.topic == Topic.of(type: "viewport", client: client), "\(entry.topic)")
            }
            for shard in shards {
                let mark = recorder.count
                let found = recorder.waitFor(prefix: "tally", from: mark, timeout: 30) { line in
                    let tally = BusRecorder.object(line)
                    return tally["shard"] as? String == shard.description && tally["resend"] as? Bool == false
                        && (tally["clients"] as? NSNumber)?.intValue == 3
                }
                #expect(found != nil, "no agreeing tally of shard \(shard) counting its 3 clients")
            }

            // kill -9 each shard's filter in turn while every client pans.
            for (round, shard) in shards.enumerated() {
                let name = "filter-\(shard.index)"
                let old = try #require(Self.filterPid(named: name, under: pipeline.process.pid), "no \(name): \(pipeline.process.stderrText.suffix(2000))")
                let killedAt = Date()
                kill(old, SIGKILL)
                for index in maps.indices {
                    pan(index, 33 + Double(index) + Double(round) * 3, -110 + 4 * Double(index), 8, 10)
                }
                var back: Double?
                while back == nil, Date().timeIntervalSince(killedAt) < 60 {
                    if let new = Self.filterPid(named: name, under: pipeline.process.pid), new != old { back = Date().timeIntervalSince(killedAt) }
                    else { try? await Task.sleep(for: .seconds(0.02)) }
                }
                let backAt = try #require(back, "\(name) never came back")
                let took = converge(timeout: 60)
                let right = took.map { _ in Date().timeIntervalSince(killedAt) }
                print("shard kill: \(name) back after \(String(format: "%.2f", backAt)) s, every client right after \(right.map { String(format: "%.2f", $0) } ?? "never") s")
                #expect(took != nil, "after killing \(name): \(wrong())\n\(pipeline.process.stderrText.suffix(3000))")
                if let right { #expect(right - backAt <= 30.0, "\(name): clients right \(right - backAt) s after the shard was back") }
                for map in maps { #expect(map.held.gaps == 0 && map.held.backwards == 0, "\(map.name): versions \(map.held.versions)") }
            }
            await pipeline.stop()
        }
    }
}
