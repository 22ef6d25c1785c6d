import Foundation
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// The readiness line and file (`Readiness`): what tests, scripts and container probes wait for.
@Suite(.serialized, .processSlot) struct ReadinessTests {
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-ready-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// The broker once bound, a plug each time its command runs (and no file while it does not),
    /// each with exactly one readiness line per event and the same text in its file; a plug's
    /// command never writes the plug's file.
    @Test func brokerAndPlugAnnounceReadinessAndWriteTheirFiles() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let endpoints = ["ISOBAR_PUB": ProcessHarness.freeTCPEndpoint(), "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint()]
        let brokerFile = directory + "/broker.ready", plugFile = directory + "/plug.ready"
        let broker = try await ProcessHarness.isobar(["broker"], environment: endpoints.merging([Readiness.fileVariable: brokerFile]) { $1 })
        let ready = try #require(await broker.waitForReady(timeout: .seconds(10)), "\(broker.stderrText)")
        #expect(ready.contains(" notice broker: ready: publishers connect to \(endpoints["ISOBAR_PUB"] ?? "?"), subscribers to \(endpoints["ISOBAR_SUB"] ?? "?")"))
        #expect(Self.read(brokerFile) == "publishers connect to \(endpoints["ISOBAR_PUB"] ?? "?"), subscribers to \(endpoints["ISOBAR_SUB"] ?? "?")\n")
        #expect(broker.stderrCount(containing: ": ready: ") == 1)

        // The command prints the readiness variable it got; its first run lives 3 s (plug
        // restarts it), its second 1,000 s, so that the file's check after the second start does
        // not race the next exit on a loaded machine (a CI run took 123 s for this test).
        let marker = directory + "/ran-once"
        let script = #"echo "file=[$ISOBAR_READY_FILE]" >&2; if [ -e "$0" ]; then exec sleep 1000; fi; : > "$0"; sleep 3"#
        let plug = try await ProcessHarness.isobar(["plug", "--name", "sleeper", "--", "sh", "-c", script, marker],
                                             environment: endpoints.merging([Readiness.fileVariable: plugFile]) { $1 })
        let started = try #require(await plug.waitForReady(timeout: .seconds(30)), "\(plug.stderrText)")
        #expect(started.contains(" notice sleeper: ready: started sh (pid "))
        #expect(Self.read(plugFile)?.hasPrefix("started sh (pid ") == true)
        #expect(await plug.waitForStderr(containing: "file=[]", timeout: .seconds(30)) != nil, "the command saw the plug's readiness file")
        // Between the exit and the restart (100 ms of backoff) the file is gone; then back.
        #expect(await plug.waitForStderr(containing: "restarting in", timeout: .seconds(30)) != nil)
        let deadline = Date().addingTimeInterval(30)
        while plug.stderrCount(containing: ": ready: started sh") < 2 && Date() < deadline { try? await Task.sleep(for: .seconds(0.05)) }
        #expect(plug.stderrCount(containing: ": ready: started sh") >= 2, "\(plug.stderrText)")
        #expect(Self.read(plugFile)?.hasPrefix("started sh (pid ") == true)
        plug.signal(SIGTERM); _ = await plug.waitForExit(timeout: .seconds(15))
        broker.signal(SIGTERM); _ = await broker.waitForExit(timeout: .seconds(10))
    }
}
