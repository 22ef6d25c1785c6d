import Foundation
import Logging
import Testing
@testable import IsobarHost

/// `Supervisor` (what `isobar up` runs) in process, with real short-lived children: restarts with
/// backoff, the stop order, a service that ignores SIGTERM killed with its descendants after its
/// own stop timeout, and no restart once stopping. (`isobar up` as a whole is tested as a process
/// in IsobarProcessTests.)
@Suite(.serialized) struct SupervisorTests {
    /// Keeps every log message, in order.
    final class Messages: @unchecked Sendable {
        // @unchecked: `all` only under `lock`.
        private let lock = NSLock()
        private var all: [String] = []
        func append(_ message: String) { lock.withLock { all.append(message) } }
        var list: [String] { lock.withLock { all } }
    }

    struct Capture: LogHandler {
        let messages: Messages
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { messages.append("\(event.message)") }
    }

    static func logger(_ messages: Messages) -> Logger {
        Logger(label: "up") { _ in Capture(messages: messages) }
    }

    /// Whether `condition` holds within `seconds` (awaited, so the supervisor's own tasks run).
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    static func alive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// A service that exits at once is restarted after 100 ms, then 200, then 400: the delays
    /// double (`Backoff`); after `stop` nothing is restarted any more.
    @Test func aCrashingServiceIsRestartedWithDoublingDelaysUntilTheStop() async throws {
        let messages = Messages()
        let supervisor = Supervisor(services: [ServiceSpec(name: "crasher", command: "sh", arguments: ["-c", "exit 3"])],
                                    logger: Self.logger(messages))
        await supervisor.startAll()
        #expect(await Self.eventually(20) { messages.list.filter { $0.contains("restarting in") }.count >= 3 }, "\(messages.list)")
        await supervisor.stop()
        let restarts = messages.list.filter { $0.hasPrefix("crasher exited with status 3; restarting in ") }
        #expect(Array(restarts.prefix(3)) == [
            "crasher exited with status 3; restarting in 0.1 seconds",
            "crasher exited with status 3; restarting in 0.2 seconds",
            "crasher exited with status 3; restarting in 0.4 seconds",
        ])
        let after = messages.list.count
        try await Task.sleep(for: .seconds(1))
        #expect(messages.list.count == after, "something happened after the stop: \(messages.list.suffix(messages.list.count - after))")
        #expect(supervisor.pid(of: "crasher") == nil)
    }

    /// `stop` goes last started first; one that ignores SIGTERM is killed with its descendants
    /// after its own `stopTimeout`, and the one before it is stopped after that.
    @Test func stopGoesInReverseOrderAndKillsAStubbornServiceWithItsDescendants() async throws {
        let messages = Messages()
        let supervisor = Supervisor(services: [
            ServiceSpec(name: "first", command: "sleep", arguments: ["100"]),
            ServiceSpec(name: "stubborn", command: "sh", arguments: ["-c", #"trap "" TERM; sleep 100 & while :; do wait; done"#],
                        stopTimeout: .milliseconds(500)),
        ], logger: Self.logger(messages))
        await supervisor.startAll()
        #expect(messages.list.last == "ready: started first, stubborn", "\(messages.list)")
        let first = supervisor.pid(of: "first"), stubborn = supervisor.pid(of: "stubborn")
        #expect(first != nil && stubborn != nil)
        var grandchild: pid_t?
        #expect(await Self.eventually(5) {
            grandchild = stubborn.flatMap { OneShotProcess.descendants(of: $0).first }
            return grandchild != nil
        })
        // Reverse order: the stubborn one (started last) has its 0.5 s and is killed before `first`
        // is asked to stop. The log shows the order (a check that `first` still ran 250 ms into the
        // stop raced on a loaded machine).
        let began = Date()
        await supervisor.stop()
        let took = Date().timeIntervalSince(began)
        #expect(took >= 0.5 && took < 30, "stop took \(took) s")
        let list = messages.list
        let stubbornKilled = list.firstIndex { $0.hasPrefix("stubborn (pid \(stubborn ?? 0)) ignored SIGTERM") }
        let firstStopping = list.firstIndex { $0.hasPrefix("stop requested; stopping first") }
        if let stubbornKilled, let firstStopping {
            #expect(stubbornKilled < firstStopping, "first was stopped before the service started after it: \(list)")
        } else {
            Issue.record("no kill of stubborn or no stop of first in the log: \(list)")
        }
        #expect(messages.list.contains("stubborn (pid \(stubborn ?? 0)) ignored SIGTERM for 0.5 seconds; sending SIGKILL to it and its descendants"), "\(messages.list)")
        for pid in [first, stubborn, grandchild].compactMap({ $0 }) {
            #expect(await Self.eventually(30) { !Self.alive(pid) }, "pid \(pid) still alive")
        }
        #expect(await Self.eventually(30) { supervisor.pid(of: "first") == nil && supervisor.pid(of: "stubborn") == nil })
    }

    /// The line hook (what `up` watches for the gateway's "listening" line) sees every line each
    /// service writes, stdout and stderr, with the service's name and without its newline.
    @Test func theLineHookSeesEachLineOfEachService() async throws {
        let messages = Messages()
        let supervisor = Supervisor(services: [
            ServiceSpec(name: "talker", command: "sh", arguments: ["-c", "echo one; echo two >&2; exec sleep 100"]),
        ], logger: Self.logger(Messages())) { service, line in
            messages.append("\(service): \(String(decoding: line, as: UTF8.self))")
        }
        await supervisor.startAll()
        #expect(await Self.eventually(10) { messages.list.count >= 2 }, "\(messages.list)")
        await supervisor.stop()
        #expect(messages.list.sorted() == ["talker: one", "talker: two"])
    }
}
