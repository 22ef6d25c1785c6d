import Foundation
import IsobarCore
import IsobarHost
@testable import IsobarTestSupport
import Testing

/// Issue 29 item 4: `isobar conformance STAGE -- CMD ARGS...` runs a real program as the stage on
/// the repository's vectors. Isobar's own filter passes; a filter with one rule broken
/// (Tests/conformance/exclusive_edges_filter.py: viewport edges exclusive) fails, and the runner
/// names the vector that checks the rule and exits 1; a program that hangs is killed and named.
@Suite(.processSlot) struct ConformanceRunnerTests {
    static let edges = "client-contract-viewport/edges-inclusive"

    static func run(_ arguments: [String]) async throws -> (lines: [String], termination: ProcessHarness.Termination?) {
        let process = try await ProcessHarness.isobar(["conformance"] + arguments)
        process.closeStdin()
        var lines: [String] = []
        while let line = await process.nextStdoutLine(timeout: .seconds(60)) { lines.append(line) }
        return (lines, await process.waitForExit(timeout: .seconds(60)))
    }

    @Test func isobarsOwnFilterPasses() async throws {
        let root = ProcessHarness.packageRoot.path
        let result = try await Self.run(["filter", "--vectors", root + "/conformance", "--only", Self.edges, "--", ProcessHarness.isobarBinary, "filter"])
        #expect(result.lines == ["conformance filter: 1 passed, 0 failed"])
        #expect(result.termination == .exited(0))
    }

    @Test func aFilterWithOneRuleBrokenFailsAndTheVectorIsNamed() async throws {
        let root = ProcessHarness.packageRoot.path
        let result = try await Self.run(["filter", "--vectors", root + "/conformance", "--only", "client-contract-viewport/edges-*", "--only", "lines/not-json",
                                   "--", "python3", root + "/Tests/conformance/exclusive_edges_filter.py", ProcessHarness.isobarBinary])
        #expect(result.lines == [
            "FAIL filter/client-contract-viewport/edges-inclusive (Client contract: viewport): Visible bounds include their edges: stations exactly on each edge and a corner are visible, one a hair outside is not.",
            "  line 1 (visible).upsert: expected 5 items, got 0",
            "conformance filter: 1 passed, 1 failed",
        ])
        #expect(result.termination == .exited(1))
    }

    @Test func aProgramThatHangsIsKilledAndNamed() async throws {
        let runner = ConformanceRunner(vectors: ProcessHarness.packageRoot.appendingPathComponent("conformance"), stage: "filter",
                                       command: ["sh", "-c", "exec sleep 30", "sh"], selection: ConformanceSelection(only: [Self.edges]),
                                       timeout: .milliseconds(300))
        var printed: [String] = []
        let summary = try await runner.run { printed.append($0) }
        #expect(summary == ConformanceRunner.Summary(passed: 0, failed: 1, skipped: 0))
        #expect(printed.dropFirst() == ["  the program did not exit within 0.3 seconds of starting; killed", "conformance filter: 0 passed, 1 failed"])
    }
}
