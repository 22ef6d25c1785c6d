import Foundation
import IsobarHost

/// The closed loop of the `clients` benchmark: every client has one viewport in flight; when its
/// update has been applied (on the receive thread) it records the latency and sends its next one.
final class ClientsLoop: @unchecked Sendable {
    // @unchecked: mutable state only under `lock`; `plans` and `index` are immutable.
    struct Step {
        let line: [UInt8]
        let version: Int
        let annotations: Int
    }

    let names: [String]
    let plans: [[Step]]
    private let index: [String: Int]
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private var next: [Int]
    private var stop: [Int]
    private var sentAt: [Double]
    private(set) var latencies: [[Double]]
    private(set) var wrong = 0
    private var running = 0
    private weak var pipeline: Pipeline?

    init(names: [String], plans: [[Step]]) {
        self.names = names
        self.plans = plans
        index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        next = Array(repeating: 0, count: names.count)
        stop = next
        sentAt = Array(repeating: 0, count: names.count)
        latencies = Array(repeating: [], count: names.count)
    }

    /// Starts steps `range` of every client; returns at once. `wait` blocks until all are applied.
    func start(steps range: Range<Int>, on pipeline: Pipeline) {
        self.pipeline = pipeline
        lock.lock()
        running = names.count
        for i in names.indices {
            next[i] = range.lowerBound
            stop[i] = range.upperBound
        }
        lock.unlock()
        for i in names.indices { send(i, via: pipeline) }
    }

    func wait(timeout: Double) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }

    /// Clients that have not finished their steps.
    var unfinished: Int {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    private func send(_ i: Int, via pipeline: Pipeline) {
        lock.lock()
        let step = plans[i][next[i]]
        sentAt[i] = Clock.now()
        lock.unlock()
        pipeline.clients.await(names[i], version: step.version)
        pipeline.client.publish(step.line)
    }

    /// Called on the receive thread when a client applied its awaited version.
    func applied(client: String, count: Int, time: Double) {
        guard let i = index[client], let pipeline else { return }
        lock.lock()
        let step = plans[i][next[i]]
        latencies[i].append(time - sentAt[i])
        if count != step.annotations { wrong += 1 }
        next[i] += 1
        let more = next[i] < stop[i]
        if !more {
            running -= 1
            if running == 0 { finished.signal() }
        }
        lock.unlock()
        if more { send(i, via: pipeline) }
    }
}
