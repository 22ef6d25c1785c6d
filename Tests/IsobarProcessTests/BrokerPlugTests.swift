#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarBus
import Testing
@testable import IsobarTestSupport

/// Real processes: the built `isobar broker` and `isobar plug`, with the test as a bus client.
/// Serialized: each test runs several processes, and two cores are easily saturated.
@Suite("broker + plug processes", .serialized, .processSlot)
struct BrokerPlugTests {
    @Test("broker relays between publishers and subscribers and exits 0 on SIGTERM and SIGINT",
          arguments: [SIGTERM, SIGINT])
    func brokerRelaysAndStops(signal: Int32) async throws {
        let broker = try await RunningBroker.start()
        let client = try BusClient(broker, subscriptions: ["hello"])
        let seen = try client.handshake(topic: "hello") { #"{"type":"hello","n":\#($0)}"# }
        #expect(seen, "nothing relayed:\n\(broker.process.stderrText)")
        broker.process.signal(signal)
        let ended = await broker.process.waitForExit(timeout: .seconds(30))
        #expect(ended == .exited(0), "\(broker.process.stderrText)")
    }

    @Test("batches: a batched bus message reaches the command as its lines; lines the command writes at once leave as one message per topic run")
    func batchesBothWays() async throws {
        let broker = try await RunningBroker.start()
        // For every input line, one write of four lines: three of topic out, then one of other.
        let burst = #"{"type":"out","n":1}\n{"type":"out","n":2}\n{"type":"out","n":3}\n{"type":"other","n":4}\n"#
        let plug = try await broker.startPlug(["--sub", "in", "--", "sh", "-c", "while read -r line; do printf '\(burst)'; done"])
        let client = try BusClient(broker, subscriptions: ["out", "other"])
        try #require(try client.handshake(topic: "in") { #"{"type":"in","probe":\#($0)}"# }, "\(plug.stderrText)")

        // One bus message holding three lines: the command must read three lines, so answer three bursts.
        let batch = #"{"type":"in","k":1}"# + "\n" + #"{"type":"in","k":2}"# + "\n" + #"{"type":"in","k":3}"#
        try client.pub.send(topic: "in", line: batch)
        var messages: [(topic: String, lines: [String])] = []
        while messages.count < 6, let message = try client.sub.receiveMessage(timeout: .seconds(10)) {
            messages.append((message.topic, message.lines.map { String(decoding: $0, as: UTF8.self) }))
        }
        let out = [#"{"type":"out","n":1}"#, #"{"type":"out","n":2}"#, #"{"type":"out","n":3}"#]
        #expect(messages.count == 6, "\(messages)\n\(plug.stderrText)")
        for (i, message) in messages.enumerated() {
            if i % 2 == 0 {
                #expect(message.topic == "out" && message.lines == out, "\(i): \(message)")
            } else {
                #expect(message.topic == "other" && message.lines == [#"{"type":"other","n":4}"#], "\(i): \(message)")
            }
        }
        #expect(try client.sub.receiveMessage(timeout: .milliseconds(300)) == nil)
        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(0), "\(plug.stderrText)")
        await broker.stop()
    }

    @Test("plug --help prints its help and exits 0; after -- it is the command's argument")
    func plugHelp() async throws {
        for flag in ["--help", "-h"] {
            let plug = try await ProcessHarness.isobar(["plug", flag])
            #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(0))
            let text = plug.allStdoutLines.joined(separator: "\n")
            #expect(text.contains("-- COMMAND [ARGS...]") && text.contains("--no-restart"), "\(flag): \(text)\n\(plug.stderrText)")
            #expect(!plug.stderrText.contains("started"), "\(flag) started a command: \(plug.stderrText)")
        }
        // `-- echo --help`: the command gets it (here echo prints it, and the plug publishes nothing
        // useful, but what matters is that the plug ran the command rather than its own help).
        let passed = try await ProcessHarness.isobar(["plug", "--no-restart", "--", "echo", "--help"], environment: [
            "ISOBAR_PUB": ProcessHarness.freeTCPEndpoint(), "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint(),
        ])
        #expect(await passed.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(passed.stderrText.contains("started echo"), "\(passed.stderrText)")
    }

    @Test("broker refuses to bind a non-loopback endpoint without --allow-remote")
    func brokerRefusesRemote() async throws {
        let broker = try await ProcessHarness.isobar(["broker"], environment: [
            "ISOBAR_PUB": "tcp://0.0.0.0:\(ProcessHarness.freeTCPPort())",
            "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint(),
        ])
        let ended = try #require(await broker.waitForExit(timeout: .seconds(10)))
        #expect(ended != .exited(0))
        #expect(await broker.waitForStderr(containing: "--allow-remote", timeout: .seconds(1)) != nil, "\(broker.stderrText)")
    }

    @Test("10,000 lines through broker -> plug -> jq -> plug -> broker arrive in order, none lost")
    func tenThousandLinesInOrder() async throws {
        let broker = try await RunningBroker.start()
        let plug = try await broker.startPlug(["--sub", "in", "--"] + jqRewrite)
        let client = try BusClient(broker, subscriptions: ["out"])
        let ready = try client.handshake(topic: "in") { #"{"type":"in","probe":\#($0)}"# }
        try #require(ready, "no probe came back:\n\(plug.stderrText)")

        let count = 10_000
        for seq in 0..<count {
            try client.pub.send(topic: "in", line: #"{"type":"in","seq":\#(seq)}"#)
        }
        var expected = 0
        while expected < count {
            guard let (topic, object) = try client.receiveObject(timeout: .seconds(15)) else {
                Issue.record("only \(expected) of \(count) lines arrived\n\(plug.stderrText)")
                break
            }
            #expect(topic == "out")
            guard let seq = object["seq"] as? Int else { continue } // a late probe
            guard seq == expected else {
                Issue.record("expected seq \(expected), got \(seq)")
                break
            }
            expected += 1
        }
        #expect(expected == count)

        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(0), "\(plug.stderrText)")
        await broker.stop()
    }

    @Test("messages a command refused (stdin closed before reading) are held and reach its successor")
    func refusedInputIsHeldForTheNextCommand() async throws {
        let broker = try await RunningBroker.start()
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-refuse-\(UUID().uuidString)").path
        let release = marker + ".release"
        try #require(mkfifo(release, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        defer { for path in [marker, release] { try? FileManager.default.removeItem(atPath: path) } }
        // The first command closes its stdin at once (every write to it fails with EPIPE) and lingers
        // until the test releases it (a line on the FIFO, held open read-write so neither side waits
        // for the other to open it), then exits; the next one (the marker exists) is the jq rewrite.
        let script = "if [ -e '\(marker)' ]; then exec " + jqRewrite.map { "'\($0)'" }.joined(separator: " ")
            + "; else touch '\(marker)'; exec 3<>'\(release)'; exec 0<&-; echo ready >&2; read -r go <&3; exit 1; fi"
        let plug = try await broker.startPlug(["--sub", "in", "--", "sh", "-c", script])
        let client = try BusClient(broker, subscriptions: ["out"])
        try #require(await plug.waitForStderr(timeout: .seconds(10)) { $0 == "ready" } != nil, "\(plug.stderrText)")
        // The test publishes on an XPUB, which hears the subscriptions: once the plug's `in` has
        // reached it, every line it sends reaches the plug. (Sent blind, an unknown number of the
        // first lines went nowhere: the slow joiner, longer than any fixed pacing on a loaded host.)
        let publisher = try ZMQSocket(client.context, .xpub)
        defer { publisher.close() }
        try publisher.connect(broker.frontend)
        var subscribed = false
        let subscribedBy = ContinuousClock.now + .seconds(20)
        while !subscribed && ContinuousClock.now < subscribedBy {
            if let message = try publisher.receiveMessage(timeout: .milliseconds(100)) {
                subscribed = message.frames.first == [1] + Array("in".utf8)
            }
        }
        try #require(subscribed, "the plug's subscription never reached the test's publisher\n\(plug.stderrText)")
        // While the first command refuses input: 100 lines, held by the plug.
        for seq in 0..<100 {
            try publisher.send(topic: "in", line: #"{"type":"in","seq":\#(seq)}"#)
        }
        #expect(await plug.waitForStderr(containing: "holding messages", timeout: .seconds(10)) != nil, "\(plug.stderrText)")
        let fifo = open(release, O_WRONLY | O_NONBLOCK)
        try #require(fifo >= 0, "open \(release): \(String(cString: strerror(errno)))")
        _ = write(fifo, "go\n", 3)
        close(fifo)
        var received: Set<Int> = []
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline && received.count < 100 {
            if let message = try client.sub.receiveMessage(timeout: .milliseconds(100)) {
                for line in message.lines {
                    if let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
                       let value = object["seq"] as? Int {
                        received.insert(value)
                    }
                }
            }
        }
        #expect(received == Set(0..<100), "received \(received.count), missing \(Set(0..<100).subtracting(received).sorted().prefix(10))\n\(plug.stderrText)")
        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(0), "\(plug.stderrText)")
        await broker.stop()
    }

    @Test("a plugin killed mid-stream is restarted, and later lines arrive")
    func killedPluginIsRestarted() async throws {
        let broker = try await RunningBroker.start()
        let plug = try await broker.startPlug(["--sub", "in", "--"] + jqRewrite)
        let client = try BusClient(broker, subscriptions: ["out"])
        try #require(try client.handshake(topic: "in") { #"{"type":"in","probe":\#($0)}"# }, "\(plug.stderrText)")
        let firstChild = try #require(await plug.waitForChildPIDs(timeout: .seconds(5)).first)

        // Stream one line every millisecond; kill the plugin after 200 have come back.
        var received: [Int] = []
        var killed = false
        var seq = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            try client.pub.send(topic: "in", line: #"{"type":"in","seq":\#(seq)}"#)
            seq += 1
            while let message = try client.sub.receiveMessageNonBlocking() {
                for line in message.lines {
                    let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
                    if let value = object?["seq"] as? Int { received.append(value) }
                }
            }
            if !killed && received.count >= 200 {
                kill(firstChild, SIGKILL)
                killed = true
                try #require(await plug.waitForStderr(containing: "restarting", timeout: .seconds(10)) != nil, "\(plug.stderrText)")
            }
            if killed, let last = received.last, last >= seq - 500, received.count >= 600 { break }
            usleep(1_000)
        }
        #expect(killed)
        #expect(await plug.waitForStderr(containing: "killed by SIGKILL", timeout: .seconds(1)) != nil, "\(plug.stderrText)")
        #expect(plug.stderrCount(containing: "started jq") >= 2, "\(plug.stderrText)")
        let secondChild = plug.childPIDs().first
        #expect(secondChild != nil && secondChild != firstChild)
        // Lines sent after the restart arrived: at least 400 beyond the first 200, in order, no duplicates.
        #expect(received.count >= 600, "received \(received.count) lines\n\(plug.stderrText)")
        #expect(zip(received, received.dropFirst()).allSatisfy { $0 < $1 }, "out of order or duplicated")

        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(0), "\(plug.stderrText)")
        await broker.stop()
    }

    @Test("a non-JSON output line is published as one error message; the lines after it still arrive")
    func badLineBecomesErrorMessage() async throws {
        let broker = try await RunningBroker.start()
        let program = #"if .bad then "this is not json" else (.type = "out" | tojson) end"#
        let plug = try await broker.startPlug(["--sub", "in", "--name", "rewriter", "--", "jq", "-r", "--unbuffered", program])
        let client = try BusClient(broker, subscriptions: ["out", "error"])
        try #require(try client.handshake(topic: "in") { #"{"type":"in","probe":\#($0)}"# }, "\(plug.stderrText)")

        try client.pub.send(topic: "in", line: #"{"type":"in","seq":1}"#)
        try client.pub.send(topic: "in", line: #"{"type":"in","bad":true}"#)
        try client.pub.send(topic: "in", line: #"{"type":"in","seq":2}"#)

        let first = try #require(try client.receiveObject())
        #expect(first.topic == "out" && first.object["seq"] as? Int == 1)
        let error = try #require(try client.receiveObject())
        #expect(error.topic == "error")
        #expect(error.object["type"] as? String == "error")
        #expect(error.object["stage"] as? String == "rewriter")
        #expect(error.object["excerpt"] as? String == "this is not json")
        let second = try #require(try client.receiveObject())
        #expect(second.topic == "out" && second.object["seq"] as? Int == 2)
        #expect(try client.receiveObject(timeout: .milliseconds(300)) == nil)

        plug.signal(SIGINT)
        #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(0), "\(plug.stderrText)")
        await broker.stop()
    }

    @Test("SIGTERM stops the plug and its command: exit 0, child gone, its stderr copied unchanged")
    func sigtermStopsPlug() async throws {
        let broker = try await RunningBroker.start()
        let plug = try await broker.startPlug(["--name", "talker", "--", "sh", "-c", "echo hello from the plugin >&2; exec cat"])
        let child = try #require(await plug.waitForChildPIDs(timeout: .seconds(5)).first)
        #expect(await plug.waitForStderr(timeout: .seconds(5)) { $0 == "hello from the plugin" } != nil, "\(plug.stderrText)")
        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(30)) == .exited(0), "\(plug.stderrText)")
        // cat exits on end of input: no SIGTERM needed, no grace period spent (no "sending
        // SIGTERM" line: the stdin grace never ran out). A bound on the time taken raced on a
        // loaded machine, so the log is the check.
        #expect(plug.stderrCount(containing: "sending SIGTERM") == 0, "\(plug.stderrText)")
        #expect(!ProcessHarness.isAlive(child))
        await broker.stop()
    }

    @Test("a command that ignores end of input and SIGTERM is killed; the plug still exits 0")
    func stubbornCommandIsKilled() async throws {
        let broker = try await RunningBroker.start()
        let plug = try await broker.startPlug(["--", "sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"])
        let child = try #require(await plug.waitForChildPIDs(timeout: .seconds(5)).first)
        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(15)) == .exited(0), "\(plug.stderrText)")
        #expect(await plug.waitForStderr(containing: "sending SIGKILL", timeout: .seconds(1)) != nil, "\(plug.stderrText)")
        #expect(!ProcessHarness.isAlive(child))
        await broker.stop()
    }

    @Test("--no-restart: the plug exits with the command's status; a missing command gives 127")
    func noRestartPropagatesStatus() async throws {
        let broker = try await RunningBroker.start()
        let plug = try await ProcessHarness.isobar(["plug", "--no-restart", "--", "sh", "-c", "exit 7"], environment: broker.environment)
        #expect(await plug.waitForExit(timeout: .seconds(10)) == .exited(7), "\(plug.stderrText)")
        let missing = try await ProcessHarness.isobar(
            ["plug", "--no-restart", "--", "isobar-no-such-command"], environment: broker.environment)
        #expect(await missing.waitForExit(timeout: .seconds(10)) == .exited(127), "\(missing.stderrText)")
        #expect(await missing.waitForStderr(containing: "cannot start", timeout: .seconds(1)) != nil, "\(missing.stderrText)")
        await broker.stop()
    }
}
