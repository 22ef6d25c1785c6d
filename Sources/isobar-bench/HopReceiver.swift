#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarBus
import IsobarBusClient
import IsobarCore
import IsobarHost
import Synchronization

/// The receiving end of the bus-hop workload. One thread owns the SUB socket: libzmq's receive is a
/// blocking C call and a libzmq socket belongs to one thread, so this is the benchmark's one
/// thread of its own (besides the NIO event loop of the gateway benchmark's WebSocket clients).
/// It waits in `zmq_poll` on the socket and a wake descriptor (``WakePipe``): `close()` ends it at
/// once. It counts the lines of the current run (`begin`) and checks that every number arrives
/// once, in order; the sending task awaits room in its window (`room`) and the run's end
/// (`finish`), each a continuation this thread resumes, never a sleep.
final class HopReceiver: Sendable {
    /// What a run ended with.
    struct Outcome {
        let end: Date
        let received: Int
        let inOrder: Bool
    }

    /// The run in progress, or the last one.
    private struct Run {
        let total: Int
        var expected = 0
        var inOrder = true
        var received = 0
        /// Set when every line arrived, or the run stalled (the rest is lost).
        var end: Date?
        /// When the last line arrived (the stall guard counts from here).
        var lastProgress = ContinuousClock.now
    }

    private struct State {
        var run: Run?
        /// The sender waiting for `received` to reach a count.
        var room: (count: Int, continuation: CheckedContinuation<Bool, Never>)?
        /// The sender waiting for the run's end.
        var finish: CheckedContinuation<Outcome, Never>?
        var closed = false
    }

    /// A run that hears nothing for this long ends with what arrived; the rest counts as lost.
    static let stallGuard = Duration.seconds(10)

    private let state = Mutex(State())
    /// Lines of the current run received so far (read by the sender without the mutex).
    private let received = Atomic<Int>(0)
    /// Raised by the first message heard (a probe, for the handshake).
    let heard = Latch()
    private let wake: WakePipe
    private let ended: WakePipe

    /// Starts the thread that owns `socket` (subscribed and connected) from now on.
    init(socket: ZMQSocket) throws {
        guard let wake = WakePipe(), let ended = WakePipe() else {
            throw ZMQError(operation: "pipe (the bus-hop receiver's wake descriptor)", errno: EMFILE)
        }
        self.wake = wake
        self.ended = ended
        let thread = Thread { [self] in
            receive(on: socket)
            ended.signal()
        }
        thread.name = "bus-hop-receive"
        thread.start()
    }

    /// Lines of the current run received so far.
    var receivedCount: Int { received.load(ordering: .acquiring) }

    /// Starts counting a run of `total` numbered lines.
    func begin(total: Int) {
        state.withLock { $0.run = Run(total: total) }
        received.store(0, ordering: .releasing)
    }

    /// Returns true once `count` lines of the run have arrived; false if the run ended first
    /// (it stalled: the sender stops).
    func room(_ count: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                guard let run = state.run, run.end == nil else { return false }
                if run.received >= count { return true }
                state.room = (count, continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// The run's outcome, once every line arrived or it stalled.
    func finish() async -> Outcome {
        await withCheckedContinuation { continuation in
            let now: Outcome? = state.withLock { state in
                guard let run = state.run else { return Outcome(end: Date(), received: 0, inOrder: true) }
                if let end = run.end { return Outcome(end: end, received: run.received, inOrder: run.inOrder) }
                state.finish = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Ends the thread (which closes the socket) and returns once it has.
    func close() {
        state.withLock { $0.closed = true }
        wake.signal()
        ended.wait()
    }

    /// The thread: poll, receive what is waiting, count it.
    private func receive(on socket: ZMQSocket) {
        defer { socket.close() }
        var heardAny = false
        while true {
            let (closed, active, since) = state.withLock { state in
                (state.closed, state.run.map { $0.end == nil } ?? false, state.run?.lastProgress ?? .now)
            }
            if closed { return }
            // The stall guard of a run in progress (its deadline is the purpose: what has not come
            // after it is lost); between runs no timeout; `close()` wakes the poll at once.
            let guardLeft: Duration? = active ? max(.zero, since + Self.stallGuard - .now) : nil
            let events: [ZMQPollEvents]
            do {
                // timer: the stall guard above, or none; the wake descriptor ends it.
                events = try ZMQPoll.poll([.socket(socket, .readable), .fileDescriptor(wake.readFD, .readable)], timeout: guardLeft)
            } catch {
                return
            }
            if events[1].contains(.readable) { wake.drain() }
            if events[0].contains(.readable) {
                while let message = try? socket.receiveMessageNonBlocking() {
                    if !heardAny {
                        heard.raise()
                        heardAny = true
                    }
                    if let payload = message.frames.last { count(payload) }
                }
            } else if active && ContinuousClock.now - since >= Self.stallGuard {
                stall()
            }
        }
    }

    /// Counts one frame's numbered lines (a probe has no number and is not counted).
    private func count(_ payload: [UInt8]) {
        let woken = state.withLock { state -> Woken in
            guard var run = state.run, run.end == nil else { return Woken() }
            var lines = 0
            payload.withUnsafeBytes { raw in
                TopicBatch.forEachLine(in: raw) { line in
                    guard let n = HopTraffic.number(in: line) else { return }
                    if n != run.expected { run.inOrder = false }
                    run.expected = max(run.expected, n) + 1
                    lines += 1
                }
            }
            guard lines > 0 else { return Woken() }
            run.received += lines
            run.lastProgress = .now
            if run.expected >= run.total { run.end = Date() }
            state.run = run
            received.store(run.received, ordering: .releasing)
            return Woken(taking: &state)
        }
        woken.resume()
    }

    /// Ends the current run as stalled (the rest is lost) and wakes the sender.
    private func stall() {
        let woken = state.withLock { state -> Woken in
            guard state.run?.end == nil else { return Woken() }
            state.run?.end = Date()
            return Woken(taking: &state)
        }
        woken.resume()
    }

    /// The waiters that the state now satisfies, taken out of it, to resume outside the mutex.
    private struct Woken {
        var room: (CheckedContinuation<Bool, Never>, Bool)?
        var finish: (CheckedContinuation<Outcome, Never>, Outcome)?

        init() {}

        init(taking state: inout State) {
            guard let run = state.run else { return }
            if let waiter = state.room, run.received >= waiter.count || run.end != nil {
                room = (waiter.continuation, run.received >= waiter.count)
                state.room = nil
            }
            if let end = run.end, let waiter = state.finish {
                finish = (waiter, Outcome(end: end, received: run.received, inOrder: run.inOrder))
                state.finish = nil
            }
        }

        func resume() {
            if let (continuation, value) = room { continuation.resume(returning: value) }
            if let (continuation, value) = finish { continuation.resume(returning: value) }
        }
    }
}
