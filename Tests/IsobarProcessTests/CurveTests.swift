#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarBus
import Testing
@testable import IsobarTestSupport

/// CURVE with real processes: `isobar keygen` for the broker and the clients, `isobar broker
/// --curve-secret --curve-allow`, `isobar plug` with its keys in the environment, and the test as a
/// CURVE client. Lines relay end to end for allowed keys; a client with another key gets nothing.
@Suite("CURVE between processes", .serialized, .processSlot)
struct CurveTests {
    struct KeyFiles {
        let secretPath: String
        let publicPath: String
        let publicKey: String
        let secretKey: String
    }

    /// Runs `isobar keygen --out DIRECTORY --name NAME` and reads back what it wrote.
    func keygen(_ directory: String, _ name: String) async throws -> KeyFiles {
        let process = try await ProcessHarness.isobar(["keygen", "--out", directory, "--name", name])
        let ended = await process.waitForExit(timeout: .seconds(10))
        try #require(ended == .exited(0), "keygen: \(process.stderrText)")
        let base = directory + "/" + name
        func key(_ path: String) throws -> String {
            try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let files = KeyFiles(secretPath: base + ".key", publicPath: base + ".pub",
                             publicKey: try key(base + ".pub"), secretKey: try key(base + ".key"))
        let mode = try FileManager.default.attributesOfItem(atPath: files.secretPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try ZMQCurve.publicKey(forSecretKey: files.secretKey) == files.publicKey)
        return files
    }

    /// The environment of a CURVE client of `server` with `client`'s keys (paths, as users write them).
    func clientEnvironment(broker: [String: String], server: KeyFiles, client: KeyFiles) -> [String: String] {
        broker.merging([
            "ISOBAR_CURVE_SERVERKEY": server.publicPath,
            "ISOBAR_CURVE_SECRETKEY": client.secretPath,
            "ISOBAR_CURVE_PUBLICKEY": client.publicPath,
        ]) { $1 }
    }

    func socketOptions(server: KeyFiles, client: KeyFiles) -> [ZMQSocketOption] {
        ZMQSocketOption.defaults + [
            .curveServerKey(Array(server.publicKey.utf8)),
            .curvePublicKey(Array(client.publicKey.utf8)),
            .curveSecretKey(Array(client.secretKey.utf8)),
        ]
    }

    @Test("allowed keys relay lines through broker -> plug -> jq -> plug; another key and a plain client get nothing")
    func curveEndToEnd() async throws {
        let directory = "/tmp/isobar-curve-\(UUID().uuidString.prefix(12))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await keygen(directory + "/server", "broker")
        let alice = try await keygen(directory + "/clients", "alice")
        let mallory = try await keygen(directory + "/others", "mallory")

        let endpoints = ["ISOBAR_PUB": ProcessHarness.freeTCPEndpoint(), "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint()]
        let broker = try await ProcessHarness.isobar(
            ["broker", "--curve-secret", server.secretPath, "--curve-allow", directory + "/clients"], environment: endpoints)
        try #require(await broker.waitForStderr(containing: "subscribers to", timeout: .seconds(10)) != nil, "\(broker.stderrText)")
        #expect(await broker.waitForStderr(containing: "CURVE on", timeout: .seconds(10))?.contains(server.publicKey) == true)

        let plug = try await ProcessHarness.isobar(["plug", "--sub", "in", "--"] + jqRewrite,
                                             environment: clientEnvironment(broker: endpoints, server: server, client: alice))
        try #require(await plug.waitForStderr(containing: "started", timeout: .seconds(10)) != nil, "\(plug.stderrText)")
        // A plug with a valid keypair that the broker does not allow: it must neither receive "in" nor
        // get its "stolen" lines published.
        let intruderPlug = try await ProcessHarness.isobar(
            ["plug", "--name", "mallory", "--sub", "in", "--", "jq", "-c", "--unbuffered", #".type = "stolen""#],
            environment: clientEnvironment(broker: endpoints, server: server, client: mallory))
        try #require(await intruderPlug.waitForStderr(containing: "started", timeout: .seconds(10)) != nil, "\(intruderPlug.stderrText)")

        let context = try ZMQContext()
        let pub = try ZMQSocket(context, .pub, options: socketOptions(server: server, client: alice))
        try pub.connect(endpoints["ISOBAR_PUB"]!)
        let sub = try ZMQSocket(context, .sub, options: socketOptions(server: server, client: alice))
        try sub.subscribe("")
        try sub.connect(endpoints["ISOBAR_SUB"]!)
        let intruderSub = try ZMQSocket(context, .sub, options: socketOptions(server: server, client: mallory))
        try intruderSub.subscribe("")
        try intruderSub.connect(endpoints["ISOBAR_SUB"]!)
        let intruderPub = try ZMQSocket(context, .pub, options: socketOptions(server: server, client: mallory))
        try intruderPub.connect(endpoints["ISOBAR_PUB"]!)
        let plainSub = try ZMQSocket(context, .sub)
        try plainSub.subscribe("")
        try plainSub.connect(endpoints["ISOBAR_SUB"]!)
        defer { for socket in [pub, sub, intruderSub, intruderPub, plainSub] { socket.close() } }

        var unwanted: [String] = []
        func drainIntruders() throws {
            for socket in [intruderSub, plainSub] {
                while let message = try socket.receiveMessageNonBlocking() { unwanted.append("\(message.topic): \(message.payloadString)") }
            }
        }

        // Slow joiner along the whole path: probe until an "out" comes back.
        var ready = false
        let deadline = ContinuousClock.now + .seconds(20)
        var probe = 0
        while !ready && ContinuousClock.now < deadline {
            try pub.send(topic: "in", line: #"{"type":"in","probe":\#(probe)}"#)
            probe += 1
            if let message = try sub.receiveMessage(timeout: .milliseconds(50)) { ready = message.topic == "out" || ready }
            try drainIntruders()
        }
        try #require(ready, "nothing relayed with allowed keys:\nbroker: \(broker.stderrText)\nplug: \(plug.stderrText)")

        // 200 lines from the allowed client, interleaved with lines from the refused one.
        let count = 200
        for seq in 0..<count {
            try pub.send(topic: "in", line: #"{"type":"in","seq":\#(seq)}"#)
            try intruderPub.send(topic: "in", line: #"{"type":"in","seq":-1,"from":"mallory"}"#)
        }
        var seen: [Int] = []
        var others: [String] = []
        let until = ContinuousClock.now + .seconds(15)
        while seen.count < count && ContinuousClock.now < until {
            guard let message = try sub.receiveMessage(timeout: .milliseconds(200)) else { continue }
            for line in message.lines {
                let text = String(decoding: line, as: UTF8.self)
                if message.topic == "out", let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] {
                    if let seq = object["seq"] as? Int, seq >= 0 { seen.append(seq) } else if object["probe"] == nil { others.append(text) }
                } else if message.topic != "in" {
                    others.append("\(message.topic): \(text)")
                }
            }
            try drainIntruders()
        }
        // Anything still in flight has a second to show up.
        let tail = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < tail {
            if let message = try sub.receiveMessage(timeout: .milliseconds(100)), message.topic != "in", message.topic != "out" {
                others.append("\(message.topic): \(message.payloadString)")
            }
            try drainIntruders()
        }

        #expect(seen == Array(0..<count), "\(seen.count) of \(count) arrived\nplug: \(plug.stderrText)")
        #expect(others.isEmpty, "the refused client's lines (or its plug's) were delivered: \(others.prefix(5))")
        #expect(unwanted.isEmpty, "refused or plain subscribers received: \(unwanted.prefix(5))")
        #expect(broker.stderrCount(containing: "refused client \(mallory.publicKey)") == 1, "\(broker.stderrText)")
        #expect(broker.stderrCount(containing: "refused client \(alice.publicKey)") == 0)

        for process in [plug, intruderPlug] {
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: .seconds(10)) == .exited(0), "\(process.stderrText)")
        }
        broker.signal(SIGTERM)
        #expect(await broker.waitForExit(timeout: .seconds(30)) == .exited(0), "\(broker.stderrText)")
    }

    @Test("the broker refuses to start with a missing allowlist or a bad secret key, saying why")
    func brokerConfigurationErrors() async throws {
        let directory = "/tmp/isobar-curve-\(UUID().uuidString.prefix(12))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await keygen(directory, "broker")
        let endpoints = ["ISOBAR_PUB": ProcessHarness.freeTCPEndpoint(), "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint()]
        let cases: [([String], String)] = [
            (["--curve-secret", server.secretPath, "--curve-allow", directory + "/missing"], "missing"),
            (["--curve-secret", server.publicPath + ".nope", "--curve-allow", server.publicPath], "no such file"),
            (["--curve-secret", server.secretPath], "go together"),
        ]
        for (arguments, expected) in cases {
            let broker = try await ProcessHarness.isobar(["broker"] + arguments, environment: endpoints)
            let ended = await broker.waitForExit(timeout: .seconds(10))
            #expect(ended != nil && ended != .exited(0), "\(arguments)")
            #expect(await broker.waitForStderr(containing: expected, timeout: .seconds(1)) != nil, "\(arguments): \(broker.stderrText)")
        }
    }
}
