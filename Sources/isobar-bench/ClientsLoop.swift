import Foundation
import IsobarHost

/// The closed loop of the `clients` benchmark: every client has one viewport in flight; when its
/// update has been applied (on the receive thread) it records the latency and queues its next one.
/// Queued viewports leave together once the receive thread has taken every waiting message
/// (`flush`, from `BusClient`'s `onDrained`): one process playing 1,000 clients sends, in a burst,
/// what 1,000 separate phones would send at about the same moment. (One message at a time instead
/// serialises them behind this process's own receive loop, which no real fleet of clients does.)
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
    private let finished = Mailbox<Bool>()
    private var next: [Int]
    private var stop: [Int]
    private var sentAt: [Double]
    private(set) var latencies: [[Double]]
    private(set) var wrong = 0
    private var running = 0
    /// Clients whose next viewport is queued for `flush`.
    private var outbox: [Int] = []
    private weak var pipeline: Pipeline?

    /// False: each client's next viewport leaves as soon as its update is applied (`--one-at-a-time`).
    let burst: Bool

    init(names: [String], plans: [[Step]], burst: Bool = true) {
        self.names = names
        self.plans = plans
        self.burst = burst
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
        outbox.append(contentsOf: names.indices)
        lock.unlock()
        flush()
    }

    func wait(timeout: Double) -> Bool {
        finished.take(timeout: timeout) != nil
    }

    /// Forgets the latencies recorded so far (after an untimed warm-up round).
    func resetLatencies() {
        lock.lock(); defer { lock.unlock() }
        for i in latencies.indices { latencies[i].removeAll() }
    }

    /// Clients that have not finished their steps.
    var unfinished: Int {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    /// Sends every queued client's next viewport, as one burst.
    func flush() {
        guard let pipeline else { return }
        lock.lock()
        let queued = outbox
        outbox.removeAll(keepingCapacity: true)
        var lines: [[UInt8]] = []
        var versions: [Int] = []
        lines.reserveCapacity(queued.count)
        versions.reserveCapacity(queued.count)
        let now = Clock.now()
        for i in queued {
            lines.append(plans[i][next[i]].line)
            versions.append(plans[i][next[i]].version)
            sentAt[i] = now
        }
        lock.unlock()
        guard !queued.isEmpty else { return }
        for (i, version) in zip(queued, versions) { pipeline.clients.await(names[i], version: version) }
        pipeline.client.publish(lines: lines)
    }

    /// Called on the receive thread when a client applied its awaited version.
    func applied(client: String, count: Int, time: Double) {
        guard let i = index[client] else { return }
        lock.lock()
        let step = plans[i][next[i]]
        latencies[i].append(time - sentAt[i])
        if count != step.annotations { wrong += 1 }
        next[i] += 1
        let more = next[i] < stop[i]
        if more {
            outbox.append(i)
        } else {
            running -= 1
            if running == 0 { finished.put(true) }
        }
        lock.unlock()
        if more && !burst { flush() }
    }
}
