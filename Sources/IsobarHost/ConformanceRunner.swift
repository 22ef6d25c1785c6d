#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import IsobarCore
import Synchronization

/// `isobar conformance STAGE -- CMD ARGS...`: runs any program as an Isobar stage on the
/// conformance vectors (conformance/STAGE/SECTION/NAME.json) and reports every difference.
///
/// Each vector runs in a fresh process, `CMD ARGS... <the vector's args>`, never through a shell:
/// its feed bodies (fetch) and its input are written to a temporary directory first, the input
/// is the program's stdin (a file: no writer to block), and everything the program writes to stdout until it
/// exits is compared with the vector (`ConformanceComparison`). stderr is read and dropped.
public struct ConformanceRunner: Sendable {
    /// The vectors directory (its parent is `{repo}` in the vectors' arguments).
    public let vectors: URL
    public let stage: String
    public let command: [String]
    public let selection: ConformanceSelection
    /// How long one vector's program may run before it is killed and the vector fails.
    public let timeout: Duration

    public init(vectors: URL, stage: String, command: [String], selection: ConformanceSelection, timeout: Duration = .seconds(30)) {
        self.vectors = vectors
        self.stage = stage
        self.command = command
        self.selection = selection
        self.timeout = timeout
    }

    /// The tally of a whole run.
    public struct Summary: Sendable, Equatable {
        public var passed = 0
        public var failed = 0
        public var skipped = 0

        public init(passed: Int = 0, failed: Int = 0, skipped: Int = 0) {
            self.passed = passed
            self.failed = failed
            self.skipped = skipped
        }
    }

    /// The stage's vectors, sorted by `SECTION/NAME`.
    public func loadVectors() throws -> [ConformanceVector] {
        let root = vectors.appendingPathComponent(stage)
        let manager = FileManager.default
        guard let sections = try? manager.contentsOfDirectory(atPath: root.path), !sections.isEmpty else {
            throw ConformanceError.badVector("no vectors under \(root.path)")
        }
        var found: [ConformanceVector] = []
        for section in sections.sorted() {
            let directory = root.appendingPathComponent(section)
            guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { continue }
            for file in names.sorted() where file.hasSuffix(".json") {
                let data = try Data(contentsOf: directory.appendingPathComponent(file))
                found.append(try ConformanceVector(name: "\(section)/\(file.dropLast(5))", bytes: Array(data)))
            }
        }
        guard !found.isEmpty else { throw ConformanceError.badVector("no vectors under \(root.path)") }
        return found
    }

    /// Runs every selected vector, handing each report line to `print` as it is made.
    public func run(print: (String) -> Void) async throws -> Summary {
        var summary = Summary()
        for vector in try loadVectors() where selection.matches(vector.name) {
            if vector.disputed, !selection.includeDisputed {
                summary.skipped += 1
                continue
            }
            let problems = await check(vector)
            if problems.isEmpty {
                summary.passed += 1
            } else {
                summary.failed += 1
                ConformanceReport.failure(stage: stage, vector: vector, problems: problems).forEach(print)
            }
        }
        print(ConformanceReport.summary(stage: stage, passed: summary.passed, failed: summary.failed, skipped: summary.skipped))
        return summary
    }

    /// The differences of one vector (empty: it passes).
    public func check(_ vector: ConformanceVector) async -> [String] {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-conformance-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: files) }
        do {
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            for (name, body) in vector.files {
                try Data(body.utf8).write(to: files.appendingPathComponent(name))
            }
        } catch {
            return ["could not write the vector's files: \(error)"]
        }
        let arguments = vector.arguments(repo: vectors.deletingLastPathComponent().path, files: files.path)
        guard let program = command.first else { return ["no command"] }
        let output: [UInt8]
        // Beside the files directory, not in it: the program sees only the vector's files there.
        let input = files.appendingPathExtension("stdin")
        defer { try? FileManager.default.removeItem(at: input) }
        do {
            try Data(vector.stdin).write(to: input)
        } catch {
            return ["could not write the vector's input: \(error)"]
        }
        switch await execute(program: program, arguments: Array(command.dropFirst()) + arguments, stdin: input.path) {
        case .failure(let failure): return [failure.reason]
        case .success(let bytes): output = bytes
        }
        return ConformanceComparison.problems(stage: stage, expected: vector.expected, output: output)
    }

    /// Starts the program (a ``OneShotProcess``) with the file `stdin` as its input, and collects
    /// its stdout until it exits, or kills it with its descendants `timeout` after starting.
    private func execute(program: String, arguments: [String], stdin: String) async -> Result<[UInt8], ConformanceFailure> {
        let output = Mutex<[UInt8]>([])
        let child: OneShotProcess
        do {
            // stderr is read and dropped; stdout lines are kept whole, however long.
            child = try await OneShotProcess.start(
                command: program, arguments: arguments, input: .file(stdin), maxLineLength: 1 << 40
            ) { stream, event in
                guard stream == .standardOutput, case .line(let line) = event else { return }
                output.withLock { $0 += line; $0.append(0x0A) }
            }
        } catch {
            return .failure(ConformanceFailure("could not start \(program): \(error)"))
        }
        // The deadline only guards against a program that hangs.
        guard await child.waitForExit(timeout: timeout) != nil else {
            child.kill()
            _ = await child.waitForExit()
            return .failure(ConformanceFailure("the program did not exit within \(timeout) of starting; killed"))
        }
        return .success(output.withLock { $0 })
    }
}

/// A vector that could not be run at all (the program did not start, or hung).
struct ConformanceFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
