#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import IsobarCore
import Logging
import Subprocess

/// One run of a command, the one spawn and the one teardown sequence in isobar: each run of a
/// ``SupervisedProcess`` (`up`, `plug`) and each ``OneShotProcess`` (the benchmark, the test
/// harness, `isobar conformance`) is one of these.
///
/// The command starts through swift-subprocess (never a shell) in a process group of its own, with
/// default signal dispositions; its stderr (and its stdout, unless it goes to a file) is copied
/// line by line to `copy`. When `stop` is raised the teardown sequence runs, each step with its
/// budget from ``SupervisedProcess/Teardown``: its stdin closed (`closeStdin`), SIGTERM to its
/// group, then SIGKILL for its group and every group its descendants lead. Nothing polls: the
/// child is awaited on a pidfd (swift-subprocess), the budgets are `Task.sleep`s that its exit
/// cancels.
struct ProcessLaunch: Sendable {
    typealias Input = OneShotProcess.Input
    typealias Output = OneShotProcess.Output

    let name: String
    let command: String
    let arguments: [String]
    /// Added to (and overriding) this process's environment.
    let environment: [String: String]
    let input: Input
    let output: Output
    let teardown: SupervisedProcess.Teardown
    let maxLineLength: Int
    let logger: Logger
    let copy: @Sendable (SupervisedProcess.Stream, LineEvent) -> Void
    let flush: @Sendable (SupervisedProcess.Stream) -> Void

    /// Spawns the command once and returns its pid and how it ended. `started` hears of the run
    /// as soon as it is spawned and returns false when a stop began meanwhile: it is then killed at
    /// once. Raising `stop` runs the teardown sequence (`closeStdin` is its first step when the
    /// teardown has a stdin grace).
    func run(stop: Latch, closeStdin: @escaping @Sendable () -> Void = {},
             started: @escaping @Sendable (SupervisedProcess.Running) -> Bool) async throws -> (pid_t, ChildProcessExit) {
        var options = PlatformOptions()
        options.processGroupID = 0
        let executable: Executable = command.contains("/") ? .path(.init(command)) : .name(command)
        // The child learns who started it (`ParentWatch`): an `isobar` child ends when this process ends.
        var added = Dictionary(uniqueKeysWithValues: self.environment.map { (Environment.Key(stringLiteral: $0.key), Optional($0.value)) })
        added[Environment.Key(stringLiteral: ParentWatch.environmentKey)] = String(getpid())
        let environment = Environment.inherit.updating(added)
        let stdinPipe = input == .pipe ? try Self.makePipe() : nil
        // Held from here, so a failed spawn closes it too.
        let stdinWrite = stdinPipe.map { ChildProcessPipe(fd: $0.write) }
        let inputFD: Int32
        switch input {
        case .none: inputFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        case .pipe: inputFD = stdinPipe?.read ?? -1
        case .file(let path): inputFD = open(path, O_RDONLY | O_CLOEXEC)
        }
        guard inputFD >= 0 else { throw ChildProcessPipeError(operation: "open stdin for \(command)", errno: errno) }
        let stdin: FileDescriptorInput = .fileDescriptor(.init(rawValue: inputFD), closeAfterSpawningProcess: true)
        let arguments = Arguments(self.arguments)
        let body = { (pid: pid_t, streams: [(SubprocessOutputSequence, SupervisedProcess.Stream)]) async -> pid_t in
            await supervise(pid: pid, stdin: stdinWrite, streams: streams, stop: stop, closeStdin: closeStdin, started: started)
        }
        let result: (pid: pid_t, status: TerminationStatus)
        switch output {
        case .lines:
            let run = try await Subprocess.run(
                executable, arguments: arguments, environment: environment, platformOptions: options,
                input: stdin, output: .sequence, error: .sequence
            ) { execution in
                await body(execution.processIdentifier.value,
                           [(execution.standardOutput, .standardOutput), (execution.standardError, .standardError)])
            }
            result = (run.closureResult, run.terminationStatus)
        case .file(let path):
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw ChildProcessPipeError(operation: "open \(path) for the stdout of \(command)", errno: errno) }
            let run = try await Subprocess.run(
                executable, arguments: arguments, environment: environment, platformOptions: options,
                input: stdin, output: .fileDescriptor(.init(rawValue: fd), closeAfterSpawningProcess: true), error: .sequence
            ) { execution in
                await body(execution.processIdentifier.value, [(execution.standardError, .standardError)])
            }
            result = (run.closureResult, run.terminationStatus)
        }
        switch result.status {
        case .exited(let code): return (result.pid, .exited(code: code))
        case .signaled(let signal): return (result.pid, .signaled(signal: signal))
        }
    }

    /// The life of one spawned command: tells `started`, copies its streams until it exits, and
    /// runs the teardown sequence if `stop` is raised meanwhile.
    private func supervise(pid: pid_t, stdin: ChildProcessPipe?, streams: [(SubprocessOutputSequence, SupervisedProcess.Stream)],
                           stop: Latch, closeStdin: @escaping @Sendable () -> Void,
                           started: @Sendable (SupervisedProcess.Running) -> Bool) async -> pid_t {
        guard started(SupervisedProcess.Running(pid: pid, stdin: stdin)) else {
            // A stop began while it was being spawned: it never counts as running.
            Self.killTree(pid)
            return pid
        }
        await withTaskGroup(of: Void.self) { group in
            for (stream, kind) in streams {
                group.addTask { await self.copyLines(stream, kind) }
            }
            group.addTask {
                // The copies end when the command exits (swift-subprocess cancels its pipes then,
                // even if a descendant holds them open), which cancels this teardown.
                await stop.wait()
                guard !Task.isCancelled else { return }
                await self.tearDown(pid, closeStdin: closeStdin)
            }
            for _ in streams { await group.next() }
            group.cancelAll()
        }
        if stop.isRaised {
            // Whatever the command left running in its group goes with it.
            _ = Glibc.kill(-pid, SIGKILL)
        }
        return pid
    }

    /// The teardown sequence for `pid`; a step's budget ends early (the task is cancelled) when
    /// the command exits.
    private func tearDown(_ pid: pid_t, closeStdin: @Sendable () -> Void) async {
        if let grace = teardown.stdinCloseGrace {
            closeStdin()
            guard (try? await Task.sleep(for: grace)) != nil else { return }
            logger.info("\(name) (pid \(pid)) still running \(grace) after its stdin was closed; sending SIGTERM")
        }
        _ = Glibc.kill(-pid, SIGTERM)
        guard (try? await Task.sleep(for: teardown.terminateGrace)) != nil else { return }
        logger.warning("\(name) (pid \(pid)) ignored SIGTERM for \(teardown.terminateGrace); sending SIGKILL to it and its descendants")
        Self.killTree(pid)
    }

    /// Copies `stream` to `copy`, one line at a time.
    private func copyLines(_ stream: SubprocessOutputSequence, _ kind: SupervisedProcess.Stream) async {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        do {
            for try await buffer in stream {
                buffer.withUnsafeBytes { raw in splitter.append(raw) { copy(kind, $0) } }
                flush(kind)
            }
        } catch {
            logger.error("reading the \(kind == .standardOutput ? "stdout" : "stderr") of \(name) failed: \(error)")
        }
        splitter.finish { copy(kind, $0) }
        flush(kind)
    }

    /// SIGKILL for `pid`'s group and, first listed, every group led by one of its descendants
    /// (found through `/proc/PID/task/*/children`): a plug killed at once takes its stage (which
    /// leads a group of its own) with it instead of leaving it orphaned and running. The
    /// descendants are listed before anything dies (once `pid` is gone they are re-parented).
    static func killTree(_ pid: pid_t) {
        let descendants = Self.descendants(of: pid)
        _ = Glibc.kill(-pid, SIGKILL)
        _ = Glibc.kill(pid, SIGKILL)
        for descendant in descendants { _ = Glibc.kill(-descendant, SIGKILL); _ = Glibc.kill(descendant, SIGKILL) }
    }

    /// Every descendant of `pid` now living (children first), from `/proc`.
    static func descendants(of pid: pid_t) -> [pid_t] {
        var found: [pid_t] = []
        var queue = [pid]
        while let next = queue.popLast() {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(next)/task")) ?? []
            for task in tasks {
                guard let text = try? String(contentsOfFile: "/proc/\(next)/task/\(task)/children", encoding: .utf8) else { continue }
                for word in text.split(separator: " ") {
                    if let child = pid_t(word.trimmingCharacters(in: .whitespacesAndNewlines)), !found.contains(child) {
                        found.append(child)
                        queue.append(child)
                    }
                }
            }
        }
        return found
    }

    /// A pipe, both ends close-on-exec (the child's end is dup'ed onto its stdin by the spawn,
    /// which also closes every other descriptor in the child), so no other child holds it open.
    static func makePipe() throws(ChildProcessPipeError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw ChildProcessPipeError(operation: "pipe", errno: errno) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }
}
