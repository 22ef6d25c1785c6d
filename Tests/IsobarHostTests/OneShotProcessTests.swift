import Foundation
import Testing
import IsobarHost
import Synchronization

/// `OneShotProcess`, the one-shot run that the benchmark and `isobar conformance` use, on the
/// teardown sequence `up` and `plug` use (`ProcessLaunch`): the behaviours the hand-written
/// spawner (`ChildProcess`) had, now tested against the one way isobar runs a process.
@Suite(.serialized) struct OneShotProcessTests {
    /// The live members of a process group, from /proc (zombies excluded).
    static func members(ofGroup group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After "(comm)": state, ppid, pgrp.
            guard fields.count > 2, fields[0] != "Z", pid_t(fields[2]) == group else { return nil }
            return pid
        }
    }

    static func gone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// Whether `condition` holds within `seconds` (awaited, so the process's own tasks run).
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// `kill` (the teardown's last step, as `isobar up` uses it on a plug that overran its stop):
    /// every descendant goes, including one in a session (and group) of its own.
    @Test func killLeavesNoDescendant() async throws {
        let child = try await OneShotProcess.start(command: "sh", arguments: ["-c", "sleep 1000 & setsid sleep 1000 & sh -c 'sleep 1000' & wait"])
        #expect(await Self.eventually(5) { OneShotProcess.descendants(of: child.pid).count >= 4 })
        let descendants = OneShotProcess.descendants(of: child.pid)
        child.kill()
        #expect(await child.waitForExit(timeout: .seconds(10)) == .signaled(signal: SIGKILL))
        #expect(await Self.eventually(3) { descendants.allSatisfy(Self.gone) }, "alive: \(descendants.filter { !Self.gone($0) })")
    }

    /// `stop`: a child that ignores SIGTERM is killed once its budget is over, with what it left
    /// in its group.
    @Test func stopKillsAChildThatIgnoresSIGTERMAfterItsBudgetWithItsGroup() async throws {
        let child = try await OneShotProcess.start(
            command: "sh", arguments: ["-c", #"trap "" TERM; sleep 1000 & while :; do wait; done"#],
            teardown: .init(terminateGrace: .milliseconds(500)))
        #expect(await Self.eventually(5) { Self.members(ofGroup: child.pid).count >= 2 })
        let began = ContinuousClock.now
        let exit = await child.stop()
        let took = ContinuousClock.now - began
        #expect(exit == .signaled(signal: SIGKILL))
        #expect(took >= .milliseconds(500), "killed after \(took), before its budget")
        #expect(await Self.eventually(3) { Self.members(ofGroup: child.pid).isEmpty }, "left running: \(Self.members(ofGroup: child.pid))")
    }

    /// A child that ends on SIGTERM is not waited on for the rest of its budget.
    @Test func stopEndsAtTheExitNotAtTheBudget() async throws {
        let child = try await OneShotProcess.start(command: "sleep", arguments: ["1000"], teardown: .init(terminateGrace: .seconds(30)))
        let began = ContinuousClock.now
        #expect(await child.stop() == .signaled(signal: SIGTERM))
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    /// stdout and stderr reach `copy` line by line; the exit status is the command's.
    @Test func linesAndExitStatus() async throws {
        let lines = Lines()
        let child = try await OneShotProcess.start(command: "sh", arguments: ["-c", "echo one; echo two >&2; printf three; exit 3"]) { stream, event in
            if case .line(let line) = event { lines.append("\(stream == .standardOutput ? "out" : "err") \(String(decoding: line, as: UTF8.self))") }
        }
        #expect(await child.waitForExit(timeout: .seconds(10)) == .exited(code: 3))
        #expect(lines.list.sorted() == ["err two", "out one", "out three"])
    }

    final class Lines: Sendable {
        private let all = Mutex<[String]>([])
        func append(_ line: String) { all.withLock { $0.append(line) } }
        var list: [String] { all.withLock { $0 } }
    }
}
