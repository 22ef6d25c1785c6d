import Foundation
import HummingbirdWSClient
import IsobarCore
import Logging
import NIOCore
import NIOPosix

/// Many WebSocket map clients in this process (hummingbird-websocket's client), for the gateway
/// benchmark: each connects to `/ws`, sends its first viewport and waits for its first
/// `annotations`; a panning client then walks its plan one viewport at a time (closed loop: the
/// next leaves when the answer with the expected version arrived), one walk per `go(run:)`.
///
/// `@unchecked Sendable`: shared counters live under `lock`; each client's walk state is touched
/// only by its own connection handler.
final class WSFleet: @unchecked Sendable {
    struct Step: Sendable {
        let text: String
        let version: Int
    }

    private let lock = NSCondition()
    private var connected = 0
    private var failed: [String] = []
    private(set) var latencies: [Double] = []
    private var stepsDone = 0
    private var gaps = 0
    private var goes: [AsyncStream<Range<Int>>.Continuation] = []
    private let url: String
    private let group: MultiThreadedEventLoopGroup

    init(port: Int, threads: Int = 1) {
        url = "ws://127.0.0.1:\(port)/ws"
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    }

    var connectedCount: Int { lock.lock(); defer { lock.unlock() }; return connected }
    var failures: [String] { lock.lock(); defer { lock.unlock() }; return failed }
    var completedSteps: Int { lock.lock(); defer { lock.unlock() }; return stepsDone }
    var versionGaps: Int { lock.lock(); defer { lock.unlock() }; return gaps }

    /// Connects one client that sends `first` and then only listens (an idle map).
    func connectIdle(name: String, first: String) {
        start(name: name, first: first, plan: [])
    }

    /// Connects one client that sends `plan[0...]` when told to (`go`), one step per answer.
    func connectPanning(name: String, first: String, plan: [Step]) {
        start(name: name, first: first, plan: plan)
    }

    /// Lets every panning client walk steps `range` of its plan.
    func go(steps range: Range<Int>) {
        lock.lock()
        let all = goes
        lock.unlock()
        for continuation in all { continuation.yield(range) }
    }

    /// Waits until `condition` holds (checked whenever a counter moves) or `seconds` pass.
    @discardableResult
    func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        lock.lock()
        defer { lock.unlock() }
        while true {
            lock.unlock()
            let done = condition()
            lock.lock()
            if done { return true }
            if !lock.wait(until: min(deadline, Date().addingTimeInterval(0.05))) && Date() >= deadline { return false }
        }
    }

    func resetLatencies() {
        lock.lock()
        latencies.removeAll(keepingCapacity: true)
        lock.unlock()
    }

    private func start(name: String, first: String, plan: [Step]) {
        let (goStream, goContinuation) = AsyncStream.makeStream(of: Range<Int>.self)
        if !plan.isEmpty {
            lock.lock()
            goes.append(goContinuation)
            lock.unlock()
        }
        var logger = Logger(label: "bench-ws")
        logger.logLevel = .critical
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24)
        let url = url + "?client=" + name, group = group
        Task {
            do {
                try await WebSocketClient.connect(url: url, configuration: configuration, eventLoopGroup: group,
                                                  logger: logger) { inbound, outbound, _ in
                    var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                    try await outbound.write(.text(first))
                    var version = 0
                    // The first answer: the client is known and holds its set.
                    while version == 0, let message = try await messages.next() {
                        if case .text(let text) = message, let v = Self.version(in: text) { version = v }
                    }
                    self.count { $0.connected += 1 }
                    guard !plan.isEmpty else {
                        // An idle map: listen until the connection ends.
                        while try await messages.next() != nil {}
                        return
                    }
                    // The plan's versions were computed for a client whose first answer was version 1.
                    let offset = version - 1
                    for await range in goStream {
                        for index in range where index < plan.count {
                            let step = plan[index]
                            let sent = DispatchTime.now().uptimeNanoseconds
                            try await outbound.write(.text(step.text))
                            var applied = false
                            while !applied, let message = try await messages.next() {
                                guard case .text(let text) = message, let v = Self.version(in: text) else { continue }
                                if v == step.version + offset {
                                    applied = true
                                } else if v > step.version + offset {
                                    self.count { $0.gaps += 1 }
                                    applied = true
                                }
                            }
                            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e9
                            self.count { $0.latencies.append(elapsed); $0.stepsDone += 1 }
                        }
                    }
                }
            } catch {
                self.count { $0.failed.append("\(name): \(error)") }
            }
        }
    }

    private func count(_ change: (WSFleet) -> Void) {
        lock.lock()
        change(self)
        lock.broadcast()
        lock.unlock()
    }

    /// The `version` of an `annotations` frame, read without a full parse (nil for other frames).
    static func version(in text: String) -> Int? {
        guard text.hasPrefix(#"{"type":"annotations""#) else { return nil }
        var utf8 = text.utf8[...]
        let key = Array(#""version":"#.utf8)
        while let start = utf8.firstIndex(of: key[0]) {
            if utf8[start...].starts(with: key) {
                var value = 0
                for byte in utf8[utf8.index(start, offsetBy: key.count)...] {
                    guard byte >= 48 && byte <= 57 else { break }
                    value = value * 10 + Int(byte - 48)
                }
                return value
            }
            utf8 = utf8[utf8.index(after: start)...]
        }
        return nil
    }
}
