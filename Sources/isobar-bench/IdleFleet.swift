import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// Idle map clients for the `clients` benchmark, hosted the way a gateway hosts its clients
/// (PROTOCOL.md, "Gateways: idle clients at no cost"): each sends one viewport (with `gateway` and
/// `ref` 1) and then nothing, and this process publishes one `lease` per second for all of them
/// (a timer of the pipeline's `BusClient`, on the thread that already waits on its socket).
/// So the pipeline's cost of an idle client is what the protocol makes it, with nothing of a
/// WebSocket server's own in the way (the `gateway` benchmark measures that).
final class IdleFleet: Sendable {
    static let gateway = "bench-gw"
    let names: [String]
    /// Annotations each client holds after its one answer (version `versions[i]`), from the shadow.
    let expected: [Int]
    let versions: [Int]
    private let lines: [[UInt8]]
    /// The lease, the same every second once every client holds its answer: `ref` 1 and the
    /// version the shadow says it gets, per client partition as a gateway sends it.
    let lease: [UInt8]

    init(count: Int, shadow: Shadow, snapshot: StationSnapshot, seed: UInt64, spans: ClosedRange<Double>) throws {
        var names: [String] = [], expected: [Int] = [], versions: [Int] = [], lines: [[UInt8]] = []
        var partitionCounts = [Int](repeating: 0, count: ClientPartition.count)
        var partitionDigests = [LeaseDigest](repeating: LeaseDigest(), count: ClientPartition.count)
        var digest = LeaseDigest()
        var planner = PanPlanner(seed: seed, spans: spans, jumpEvery: 1)
        for i in 0..<count {
            let name = String(format: "i%06d", i)
            var viewport = Viewport(client: name, region: planner.next(in: snapshot))
            viewport.gateway = Self.gateway
            viewport.ref = 1
            let (line, answer) = shadow.answer(viewport)
            guard let version = answer.version else { throw ValidationError("the shadow filter did not answer idle client \(name)") }
            names.append(name)
            expected.append(answer.annotations)
            versions.append(version)
            lines.append(line)
            let entry = LeaseDigest.entry(client: name, ref: 1, version: version)
            let partition = ClientPartition.of(name)
            partitionCounts[partition] += 1
            partitionDigests[partition].toggle(entry)
            digest.toggle(entry)
        }
        self.names = names
        self.expected = expected
        self.versions = versions
        self.lines = lines
        let parts = (0..<ClientPartition.count).compactMap { p in
            partitionCounts[p] > 0 ? Lease.Part(partition: p, clients: partitionCounts[p], digest: partitionDigests[p]) : nil
        }
        var writer = JSONWriter()
        Lease(gateway: Self.gateway, clients: count, digest: digest.hex, partitions: parts).write(to: &writer)
        lease = Array(writer.bytes.dropLast())
    }

    /// Sends every client's viewport (in bursts of `burst`, as many phones opening the map) and
    /// waits until each holds its answer; the seconds it took. Throws when one is missing.
    func connect(_ pipeline: Pipeline, burst: Int = 2_000) async throws -> Double {
        let start = Clock.now()
        for (name, version) in zip(names, versions) { pipeline.clients.await(name, version: version) }
        var index = 0
        while index < lines.count {
            let end = min(lines.count, index + burst)
            pipeline.client.publish(lines: Array(lines[index..<end]))
            // Keep at most two bursts in flight (below every high-water mark).
            let waitFor = names[max(0, index - burst)..<index]
            guard await pipeline.waitFor(seconds: 60, { waitFor.allSatisfy { pipeline.clients.messages($0) > 0 } }) else {
                throw pipeline.failure("idle clients: no answer for a burst within 60 s")
            }
            index = end
        }
        guard await pipeline.waitFor(seconds: 120, { self.names.allSatisfy { pipeline.clients.messages($0) > 0 } }) else {
            throw pipeline.failure("idle clients: \(names.filter { pipeline.clients.messages($0) == 0 }.count) never answered")
        }
        return Clock.now() - start
    }

    /// Clients that do not hold exactly their expected answer: another count, another version, or
    /// more than the one message (an idle client must receive nothing after its answer).
    func wrong(_ pipeline: Pipeline) -> Int {
        zip(names, zip(expected, versions)).filter { name, want in
            let held = pipeline.clients.held(name)
            return held.messages != 1 || held.count != want.0 || held.version != want.1
        }.count
    }

    /// Publishes the lease now and then once a second (`BusClient.every`) until the pipeline's
    /// client is closed (`Pipeline.stop`).
    func startLeasing(_ pipeline: Pipeline) {
        let lease = self.lease
        let bus = pipeline.client
        bus.publish(lease)
        bus.every(.seconds(1)) { bus.publish(lease) }
    }
}
