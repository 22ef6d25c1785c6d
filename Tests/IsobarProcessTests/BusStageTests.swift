#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

/// A built-in stage on the bus in process (`isobar format --bus`, `isobar filter --bus`) against a
/// real broker: it publishes exactly what the same stage writes on stdout, under the topics a plug
/// would derive, keeps going after bad input, and stops cleanly on SIGTERM.
@Suite(.processSlot) struct BusStageTests {
    static let visible = [
        #"{"type":"visible","client":"bs1","version":1,"full":true,"day":"today","field":"wind","upsert":[{"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.90468887898,"windDirection":270,"precipitation":0}],"remove":[]}"#,
        #"{"type":"visible","client":"bs1","version":2,"full":false,"day":"today","field":"temperature","upsert":[{"id":"KXYZ","name":"ELSEWHERE","latitude":41.5,"longitude":-100.25,"temperature":-3.5,"windSpeed":0,"windDirection":0,"precipitation":0.2}],"remove":["K1D3"]}"#,
        #"{"type":"selection","client":"bs2","id":"K1D3","day":"today","reason":"selected","station":{"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.90468887898,"windDirection":270,"precipitation":0}}"#,
    ]

    /// What `isobar format` writes on stdout for `lines`.
    static func formatOnStdin(_ lines: [String]) async throws -> [String] {
        let stage = try await ProcessHarness.isobar(["format"])
        for line in lines { try stage.writeLine(line) }
        stage.closeStdin()
        var out: [String] = []
        while let line = await stage.nextStdoutLine(timeout: .seconds(10)) { out.append(line) }
        _ = await stage.waitForExit(timeout: .seconds(10))
        return out
    }

    static func object(_ line: String) -> NSDictionary {
        ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? NSDictionary) ?? [:]
    }

    @Test func formatOnTheBusPublishesWhatItWritesOnStdoutAndSurvivesBadInput() async throws {
        let broker = try await RunningBroker.start()
        let stage = try await ProcessHarness.isobar(["format", "--bus", "--max-line-bytes", "4096"], environment: broker.environment)
        defer { stage.signal(SIGKILL) }
        let ready = await stage.waitForReady(timeout: .seconds(10))
        try #require(ready?.contains("format: ready: on the bus in process (pid ") == true, "\(stage.stderrText)")

        let client = try BusClient(broker, subscriptions: ["annotations/", "callout/", "error"])
        let probe = #"{"type":"visible","client":"probe","version":1,"full":true,"day":"today","upsert":[],"remove":[]}"#
        try #require(try client.handshake(topic: "visible") { _ in probe }, "no answer from format --bus\n\(stage.stderrText)")

        // Two lines in one batched bus message, then a third alone: the answers, in order, under
        // the topics a plug derives, equal to what the stage writes on stdout.
        try client.pub.send(topic: "visible", line: Self.visible[0] + "\n" + Self.visible[1])
        try client.pub.send(topic: "selection", line: Self.visible[2])
        let expected = try await Self.formatOnStdin(Self.visible)
        try #require(expected.count == 3, "format on stdin wrote \(expected)")
        for (k, want) in expected.enumerated() {
            let got = try client.receiveObject()
            let wantObject = Self.object(want)
            let topic = "\(wantObject["type"] as? String ?? "?")/\(wantObject["client"] as? String ?? "?")"
            #expect(got?.topic == topic, "answer \(k)")
            #expect(got.map { NSDictionary(dictionary: $0.object) } == wantObject, "answer \(k): \(String(describing: got?.object)) vs \(want)")
        }

        // A line over --max-line-bytes: one error from the stage, naming the limit; not JSON: the
        // engine's own error; then it still answers.
        let long = #"{"type":"visible","client":"big","pad":""# + String(repeating: "x", count: 5000) + #""}"#
        try client.pub.send(topic: "visible", line: long)
        let tooLong = try client.receiveObject()
        #expect(tooLong?.topic == "error")
        #expect(tooLong?.object["stage"] as? String == "format")
        #expect((tooLong?.object["message"] as? String)?.contains("exceeds the 4096-byte limit") == true, "\(String(describing: tooLong?.object))")
        try client.pub.send(topic: "visible", line: "{not json")
        let notJSON = try client.receiveObject()
        #expect(notJSON?.topic == "error" && notJSON?.object["stage"] as? String == "format", "\(String(describing: notJSON?.object))")
        try client.pub.send(topic: "visible", line: Self.visible[0])
        #expect(try client.receiveObject()?.topic == "annotations/bs1")

        stage.signal(SIGTERM)
        #expect(await stage.waitForExit(timeout: .seconds(10)) == .exited(0), "\(stage.stderrText)")
        #expect(stage.stderrText.contains("format: stopped"))
        await broker.stop()
    }

    /// A filter shard on the bus subscribes to its own partitions only (the topics of
    /// `Shard.subscriptions`), and with --request-resync asks for the snapshots until it has one:
    /// the request it publishes at start goes nowhere here (nobody subscribed to `resync` yet, as
    /// with ZeroMQ's slow joiner), and the one the recorder hears is a repeat on its schedule.
    @Test func filterShardOnTheBusHearsOnlyItsClientsAndAsksForAResync() async throws {
        let broker = try await RunningBroker.start()
        let stage = try await ProcessHarness.isobar(["filter", "--bus", "--shard", "1/2", "--request-resync"], environment: broker.environment)
        defer { stage.signal(SIGKILL) }
        #expect(await stage.waitForReady(timeout: .seconds(10))?.contains("filter-1: ready: on the bus in process") == true, "\(stage.stderrText)")
        // Ready is logged after the first request was published: this recorder cannot hear it.
        let recorder = try BusClient(broker, subscriptions: ["resync"])
        try #require(try recorder.handshake(topic: "resync") { n in #"{"type":"resync","reason":"probe \#(n)"}"# })
        // Repeats come 1, 2, 4, 8 s apart after the first tick (0.25 s): one within 20 s whatever
        // the handshake took.
        var resync: (topic: String, object: [String: Any])?
        while resync == nil || (resync?.object["reason"] as? String)?.hasPrefix("probe") == true {
            guard let next = try recorder.receiveObject(timeout: .seconds(20)) else { break }
            resync = next
        }
        #expect(resync?.object["reason"] as? String == "filter started", "\(String(describing: resync?.object))")
        let subscribed = stage.stderrText
        #expect(subscribed.contains("viewport/PP/ (32 partitions: 01, 03, ..., 63)"), "\(subscribed)")
        #expect(!subscribed.contains("viewport/, "), "\(subscribed)")
        stage.signal(SIGTERM)
        #expect(await stage.waitForExit(timeout: .seconds(10)) == .exited(0), "\(stage.stderrText)")
        await broker.stop()
    }
}
