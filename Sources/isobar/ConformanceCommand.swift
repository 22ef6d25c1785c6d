import ArgumentParser
import Foundation
import IsobarCore
import IsobarHost

/// `isobar conformance STAGE -- CMD ARGS...`: the conformance kit's runner (conformance/README.md).
/// The work is IsobarHost's `ConformanceRunner`; this parses the command line and sets the exit status.
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run any program as an Isobar stage on the conformance vectors and print each difference.",
        discussion: """
        STAGE is filter, format, fetch or places. Each vector in VECTORS/STAGE/SECTION/NAME.json runs in a fresh
        `CMD ARGS... <the vector's args>` (no shell): its input is written to stdin, which is then closed, and the
        program's stdout is compared with the vector's expected lines as JSON values, ignoring what the contract
        leaves open (clock times, error message wording; conformance/README.md lists them). Every differing vector
        is printed as `FAIL STAGE/SECTION/NAME (Section): description` with its differences; exit status 1 when
        any vector differs, 2 when the vectors cannot be read.
          isobar conformance format -- python3 my_format.py
          isobar conformance filter --only 'client-contract-viewport/*' -- ./my-filter
        """)

    @Argument(help: "The stage the program implements: filter, format, fetch or places.")
    var stage: String
    @Option(name: .customLong("only"), help: "Run only vectors whose SECTION/NAME matches this glob (* and ?); repeatable.")
    var only: [String] = []
    @Flag(help: "Also run vectors marked disputed (the binary and PROTOCOL.md disagree).")
    var disputed = false
    @Option(help: "The vectors directory; its parent is {repo} in the vectors' arguments.")
    var vectors = "conformance"
    @Argument(parsing: .postTerminator, help: "The program and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard ["filter", "format", "fetch", "places"].contains(stage) else {
            throw ValidationError("STAGE must be filter, format, fetch or places, not \(stage)")
        }
        guard !command.isEmpty else { throw ValidationError("give the program after --: isobar conformance \(stage) -- CMD ARGS...") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: vectors, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        let runner = ConformanceRunner(vectors: directory, stage: stage, command: command,
                                       selection: ConformanceSelection(only: only, includeDisputed: disputed))
        let summary: ConformanceRunner.Summary
        do {
            // One write per line, unbuffered: a reader of a pipe sees each FAIL as it is found.
            summary = try await runner.run { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        } catch {
            FileHandle.standardError.write(Data("conformance: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }
}
