import NIOCore
import Synchronization

/// The WebSocket liveness check of one event loop: ONE repeated timer per loop (not one per
/// connection) that every half ping interval walks the loop's connections and asks each
/// ``PingClock`` what to do: ping a peer silent for an interval, drop one whose ping went
/// unanswered for an interval, leave the rest alone.
///
/// Why: a timer per connection put 10,000 entries in NIO's scheduled-task heap, each re-inserted
/// every interval (issue 32); a sweep of a list costs a comparison per connection and nothing
/// while the timer sleeps. The timer runs only while the loop has connections.
///
/// Lives on its loop: every method runs there (``PingSweepers`` hands it out loop-bound).
final class PingSweeper {
    private let loop: any EventLoop
    /// The ping interval, seconds.
    private let interval: Double
    private var handlers: [ObjectIdentifier: WebSocketConnectionHandler] = [:]
    private var timer: RepeatedTask?

    init(loop: any EventLoop, interval: Double) {
        self.loop = loop
        self.interval = interval
    }

    /// Starts checking `handler` (the timer too, if it is the loop's first connection).
    func add(_ handler: WebSocketConnectionHandler) {
        handlers[ObjectIdentifier(handler)] = handler
        guard timer == nil else { return }
        let period = TimeAmount.nanoseconds(max(1, Int64(interval * 1e9 / 2)))
        let bound = NIOLoopBound(self, eventLoop: loop)
        timer = loop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in bound.value.sweep() }
    }

    /// Stops checking `handler` (and the timer, if it was the loop's last connection).
    func remove(_ handler: WebSocketConnectionHandler) {
        handlers[ObjectIdentifier(handler)] = nil
        guard handlers.isEmpty else { return }
        timer?.cancel()
        timer = nil
    }

    /// One pass over the loop's connections. Iterates a copy: a drop removes its handler meanwhile.
    private func sweep() {
        let now = WebSocketConnectionHandler.seconds()
        for handler in handlers.values { handler.sweep(now: now, interval: interval) }
    }
}

/// A gateway's ``PingSweeper``s, one per event loop, made on a loop's first connection.
final class PingSweepers: Sendable {
    private let interval: Double
    private let sweepers = Mutex<[ObjectIdentifier: NIOLoopBound<PingSweeper>]>([:])

    init(interval: Double) { self.interval = interval }

    /// The sweeper of `loop`; call on `loop`.
    func sweeper(on loop: any EventLoop) -> PingSweeper {
        sweepers.withLock { sweepers in
            let key = ObjectIdentifier(loop)
            if let bound = sweepers[key] { return bound.value }
            let sweeper = PingSweeper(loop: loop, interval: interval)
            sweepers[key] = NIOLoopBound(sweeper, eventLoop: loop)
            return sweeper
        }
    }
}
