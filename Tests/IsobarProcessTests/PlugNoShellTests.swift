#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import IsobarTestSupport

/// `isobar plug` starts COMMAND with posix_spawnp, never through a shell: shell syntax in COMMAND or
/// its arguments is never interpreted.
@Suite("plug never uses a shell", .serialized, .processSlot)
struct PlugNoShellTests {
    var environment: [String: String] {
        ["ISOBAR_PUB": ProcessHarness.freeTCPEndpoint(), "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint()]
    }

    @Test("a shell command line as COMMAND is a program that does not exist: status 127, nothing runs")
    func shellLineIsNotRun() async throws {
        let marker = "/tmp/isobar-noshell-\(UUID().uuidString.prefix(12))"
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let plug = try await ProcessHarness.isobar(["plug", "--no-restart", "--", "echo hi; touch \(marker)"], environment: environment)
        let ended = await plug.waitForExit(timeout: .seconds(15))
        #expect(ended == .exited(127), "\(plug.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: marker), "a shell ran the command line")
    }

    @Test("shell syntax in an argument is passed through literally")
    func shellSyntaxInArgumentsIsLiteral() async throws {
        let marker = "/tmp/isobar-noshell-\(UUID().uuidString.prefix(12))"
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let plug = try await ProcessHarness.isobar(
            ["plug", "--no-restart", "--", "echo", "$(touch \(marker))", "`touch \(marker)`", ";", "touch", marker],
            environment: environment)
        let ended = await plug.waitForExit(timeout: .seconds(15))
        #expect(ended == .exited(0), "\(plug.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: marker), "a shell interpreted the arguments")
    }
}
