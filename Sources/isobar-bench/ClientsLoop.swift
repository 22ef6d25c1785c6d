import IsobarHost
import Synchronization

/// The closed loop of the `clients` benchmark: every client has one viewport in flight; when its
/// update has been applied (on the receive thread) it records the latency and queues its next one.
/// Queued viewports leave together once the receive thread has taken every waiting message
/// (`flush`, from `BusClient`'s `onDrained`): one process playing 1,000 clients sends, in a burst,
/// what 1,000 separate phones would send at about the same moment. (One message at a time instead
/// serialises them behind this process's own receive loop, which no real fleet of clients does.)
final class ClientsLoop: @unchecked Sendable {
    // @unchecked: `pipeline` is set by `start` before any message of the walk flows; the walk's
    // state is in `state`, `names` and `plans` are immutable.
    struct Step {
        let line: [UInt8]
        let version: Int
        let annotations: Int
    }

    /// Where every client is in its walk, under one `Mutex`.
    private struct State {
        var next: [Int]
        var stop: [Int]
        var sentAt: [Double]
        var latencies: [[Double]]
        var wrong = 0
        var running = 0
        /// Clients whose next viewport is queued for `flush`.
        var outbox: [Int] = []
        /// Each client's position in `names`, by its slot in the pipeline's `ClientTable` (-1: none
        /// of these clients), so an update applied finds its client without hashing a name.
        var bySlot: [Int] = []
    }

    let names: [String]
    let plans: [[Step]]
    private let state: Mutex<State>
    /// Raised (a value put) when the last client of a walk finished.
    private let finished = Mailbox<Bool>()
    private weak var pipeline: Pipeline?

    /// False: each client's next viewport leaves as soon as its update is applied (`--one-at-a-time`).
    let burst: Bool

    init(names: [String], plans: [[Step]], burst: Bool = true) {
        self.names = names
        self.plans = plans
        self.burst = burst
        let zeros = Array(repeating: 0, count: names.count)
        state = Mutex(State(next: zeros, stop: zeros, sentAt: Array(repeating: 0, count: names.count),
                            latencies: Array(repeating: [], count: names.count)))
    }

    /// Every client's latencies so far, in seconds.
    var latencies: [[Double]] { state.withLock { $0.latencies } }
    /// Updates whose set size was not the one the shadow filter planned.
    var wrong: Int { state.withLock { $0.wrong } }

    /// Starts steps `range` of every client; returns at once. `finished(within:)` waits for the end.
    func start(steps range: Range<Int>, on pipeline: Pipeline) {
        self.pipeline = pipeline
        let slots = names.map { pipeline.clients.slot($0) }
        state.withLock { state in
            state.bySlot = Array(repeating: -1, count: (slots.max() ?? -1) + 1)
            for (i, slot) in slots.enumerated() { state.bySlot[slot] = i }
            state.running = names.count
            for i in names.indices {
                state.next[i] = range.lowerBound
                state.stop[i] = range.upperBound
            }
            state.outbox.append(contentsOf: names.indices)
        }
        flush()
    }

    /// Whether every client finished the walk `start` began before `deadline` passed (a guard
    /// against a starved client, which the table reports).
    func finished(within deadline: Duration) async -> Bool {
        await finished.take(within: deadline) != nil
    }

    /// Forgets the latencies recorded so far (after an untimed warm-up round).
    func resetLatencies() {
        state.withLock { state in
            for i in state.latencies.indices { state.latencies[i].removeAll() }
        }
    }

    /// Clients that have not finished their steps.
    var unfinished: Int { state.withLock { $0.running } }

    /// Sends every queued client's next viewport, as one burst.
    func flush() {
        guard let pipeline else { return }
        let now = Clock.now()
        let (queued, lines, versions) = state.withLock { state -> ([Int], [[UInt8]], [Int]) in
            let queued = state.outbox
            state.outbox.removeAll(keepingCapacity: true)
            var lines: [[UInt8]] = []
            var versions: [Int] = []
            lines.reserveCapacity(queued.count)
            versions.reserveCapacity(queued.count)
            for i in queued {
                lines.append(plans[i][state.next[i]].line)
                versions.append(plans[i][state.next[i]].version)
                state.sentAt[i] = now
            }
            return (queued, lines, versions)
        }
        guard !queued.isEmpty else { return }
        for (i, version) in zip(queued, versions) { pipeline.clients.await(names[i], version: version) }
        pipeline.client.publish(lines: lines)
    }

    /// Called on the receive thread when the client in `slot` of the pipeline's `ClientTable`
    /// applied its awaited version.
    func applied(slot: Int, count: Int, time: Double) {
        let (more, done) = state.withLock { state -> (Bool, Bool) in
            guard slot < state.bySlot.count, state.bySlot[slot] >= 0 else { return (false, false) }
            let i = state.bySlot[slot]
            let step = plans[i][state.next[i]]
            state.latencies[i].append(time - state.sentAt[i])
            if count != step.annotations { state.wrong += 1 }
            state.next[i] += 1
            if state.next[i] < state.stop[i] {
                state.outbox.append(i)
                return (true, false)
            }
            state.running -= 1
            return (false, state.running == 0)
        }
        if done { finished.put(true) }
        if more && !burst { flush() }
    }
}
