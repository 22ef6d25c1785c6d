#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarHost
import Testing
@testable import IsobarTestSupport

/// How isobar's long-running processes stop (each a `BlockingService` in a swift-service-lifecycle
/// `ServiceGroup`): a stop reaches a stage's whole process group, a second signal kills at once, a
/// supervisor that must kill never leaves descendants behind, and attach ends cleanly on SIGTERM.
@Suite(.serialized, .processSlot) struct StopTests {
    var environment: [String: String] {
        ["ISOBAR_PUB": ProcessHarness.freeTCPEndpoint(), "ISOBAR_SUB": ProcessHarness.freeTCPEndpoint()]
    }

    /// Processes now in process group `group` (from /proc/PID/stat: the 5th field after the name).
    static func members(ofGroup group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // fields: state, ppid, pgrp, ...; a zombie (Z) is already dead.
            guard fields.count > 2, fields[0] != "Z", pid_t(fields[2]) == group else { return nil }
            return pid
        }
    }

    /// Waits up to `timeout` seconds for `condition`.
    static func eventually(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    /// A stage that ignores the end of its input and SIGTERM, with a background child in its
    /// group: plug's ordered stop ends with SIGKILL to the whole group, so the background child
    /// goes too (before, only the stage's own pid got the signals and `sleep` was left running).
    @Test func plugStopReachesTheStagesWholeProcessGroup() async throws {
        let plug = try await ProcessHarness.isobar(["plug", "--name", "stubborn", "--", "sh", "-c", #"trap "" TERM; sleep 1000 & while :; do sleep 0.2; done"#],
                                             environment: environment)
        let started = await plug.waitForReady(timeout: .seconds(20))
        let stage = try #require(started.flatMap { line in line.split(separator: "pid ").last.flatMap { pid_t($0.prefix { $0.isNumber }) } })
        #expect(Self.eventually(30) { Self.members(ofGroup: stage).count >= 2 }, "the stage's group: \(Self.members(ofGroup: stage))")
        let before = Date()
        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(20)) == .exited(0), "\(plug.stderrText)")
        let took = Date().timeIntervalSince(before)
        #expect(took < Double(PlugOptions(command: "").stopBudget.components.seconds) + 1, "took \(took) s")
        #expect(plug.stderrText.contains("ignored SIGTERM"), "\(plug.stderrText)")
        #expect(Self.eventually(30) { Self.members(ofGroup: stage).isEmpty }, "left running: \(Self.members(ofGroup: stage))")
    }

    /// The second SIGTERM does not wait for the graces: the stage's group is killed at once.
    @Test func aSecondSignalKillsAtOnce() async throws {
        let plug = try await ProcessHarness.isobar(["plug", "--name", "stubborn", "--", "sh", "-c", #"trap "" TERM; while :; do sleep 0.2; done"#],
                                             environment: environment)
        let started = await plug.waitForReady(timeout: .seconds(20))
        let stage = try #require(started.flatMap { line in line.split(separator: "pid ").last.flatMap { pid_t($0.prefix { $0.isNumber }) } })
        plug.signal(SIGTERM)
        #expect(await plug.waitForStderr(containing: "stop requested", timeout: .seconds(30)) != nil)
        let before = Date()
        plug.signal(SIGTERM)
        #expect(await plug.waitForExit(timeout: .seconds(20)) == .exited(0), "\(plug.stderrText)")
        let took = Date().timeIntervalSince(before)
        // The ordered stop alone would take the stdin grace (2 s) and the SIGTERM grace (2 s), and
        // end with "ignored SIGTERM"; the second signal's kill logs "killing sh (pid ...)" instead.
        // (A bound on `took` alone raced on a loaded machine.)
        #expect(plug.stderrText.contains("killing sh (pid \(stage)) and its descendants"), "\(plug.stderrText)")
        #expect(!plug.stderrText.contains("ignored SIGTERM"), "the SIGTERM grace ran out: \(plug.stderrText)")
        #expect(took < 30, "took \(took) s after the second signal")
        #expect(Self.eventually(30) { Self.members(ofGroup: stage).isEmpty }, "left running: \(Self.members(ofGroup: stage))")
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// Whether process `pid` catches `signal` (its bit in the `SigCgt:` mask of /proc/PID/status).
    static func catches(_ signal: Int32, _ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(String(line.dropFirst("SigCgt:".count)).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (UInt64(1) << UInt64(signal - 1)) != 0
    }

    /// `isobar attach` on SIGTERM: its input loop ends, it closes its session and exits 0 (before:
    /// killed by the signal, status 143, with no cleanup). attach prints no readiness line, so the
    /// test waits until its SIGTERM handler is installed (a fixed sleep raced on a loaded machine:
    /// a signal before the handler kills it); `--drain 60` makes an early end of stdin show as slow.
    @Test func attachEndsCleanlyOnSIGTERM() async throws {
        let attach = try await ProcessHarness.isobar(["attach", "--client", "stopper", "--plain", "--drain", "60", "--viewport", "40.924,-108.0955,25,20"],
                                               environment: environment)
        #expect(Self.eventually(60) { Self.catches(SIGTERM, attach.pid) }, "attach never caught SIGTERM: \(attach.stderrText)")
        let before = Date()
        attach.signal(SIGTERM)
        #expect(await attach.waitForExit(timeout: .seconds(30)) == .exited(0), "\(attach.stderrText)")
        #expect(Date().timeIntervalSince(before) < 30)
    }
}
