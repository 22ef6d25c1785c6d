import NIOCore
import Synchronization

/// The WebSocket liveness check of one event loop: its connections in a ``PingWheel`` by the time
/// each next needs looking at, and ONE scheduled task per loop that wakes when the earliest of
/// them is due and looks only at those (``PingClock`` says: keepalive pong, ping, drop, or not yet).
///
/// Why: a timer per connection put 10,000 entries in NIO's scheduled-task heap, each re-inserted
/// every interval (issue 32); a sweep of every connection every half interval still touched each
/// one twice an interval and pinged 1 to 1.5 intervals after the silence began. With the wheel a
/// silent connection costs one look and one frame (a keepalive pong, every few a ping) per
/// interval, on time to within a slot
/// (``resolution(interval:)``), so the interval can sit just under a proxy's idle timeout; a
/// talking one costs one look; the timer sleeps until something is due and stops when the loop
/// has no connections.
///
/// Lives on its loop: every method runs there (``PingSweepers`` hands it out loop-bound).
final class PingSweeper {
    private let loop: any EventLoop
    /// The keepalive interval and the probe time.
    private let timing: PingClock.Timing
    private var wheel: PingWheel<WebSocketConnectionHandler>
    private var timer: Scheduled<Void>?
    /// When `timer` fires (uptime seconds).
    private var timerAt: Double?

    init(loop: any EventLoop, timing: PingClock.Timing) {
        self.loop = loop
        self.timing = timing
        // A due time lies at most the probe time ahead (the keepalive's interval is shorter).
        wheel = PingWheel(resolution: Self.resolution(interval: timing.interval), horizon: max(timing.interval, timing.probe),
                          now: WebSocketConnectionHandler.seconds())
    }

    /// The wheel's slot: 1 s (a ping at most 1 s late), finer for short intervals (tests).
    static func resolution(interval: Double) -> Double { min(1, interval / 10) }

    /// Starts checking `handler`, due at `due` (the timer too, if it sleeps past that).
    func add(_ handler: WebSocketConnectionHandler, due: Double) {
        wheel.insert(handler, due: due, now: WebSocketConnectionHandler.seconds())
        schedule()
    }

    /// Stops checking `handler` (and the timer, if it was the loop's last connection).
    func remove(_ handler: WebSocketConnectionHandler) {
        wheel.remove(handler)
        guard wheel.count == 0 else { return }
        timer?.cancel()
        timer = nil
        timerAt = nil
    }

    /// The connections now due: each is checked and, unless it went, put back at its next due time.
    private func fire() {
        timer = nil
        timerAt = nil
        let now = WebSocketConnectionHandler.seconds()
        let checked = wheel.takeDue(now: now).map { ($0, $0.check(now: now, timing)) }
        wheel.putBack(checked, now: now)
        schedule()
    }

    /// Sets the timer for the wheel's earliest due tick (nothing when the wheel is empty, or when it
    /// is set for that time already).
    private func schedule() {
        guard let next = wheel.nextDue() else { return }
        if let timerAt, timerAt <= next { return }
        timer?.cancel()
        let delay = max(0, next - WebSocketConnectionHandler.seconds())
        let bound = NIOLoopBound(self, eventLoop: loop)
        timerAt = next
        timer = loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9) + 1)) { bound.value.fire() }
    }
}

/// A gateway's ``PingSweeper``s, one per event loop, made on a loop's first connection.
final class PingSweepers: Sendable {
    private let timing: PingClock.Timing
    private let sweepers = Mutex<[ObjectIdentifier: NIOLoopBound<PingSweeper>]>([:])

    init(timing: PingClock.Timing) { self.timing = timing }

    /// The sweeper of `loop`; call on `loop`.
    func sweeper(on loop: any EventLoop) -> PingSweeper {
        sweepers.withLock { sweepers in
            let key = ObjectIdentifier(loop)
            if let bound = sweepers[key] { return bound.value }
            let sweeper = PingSweeper(loop: loop, timing: timing)
            sweepers[key] = NIOLoopBound(sweeper, eventLoop: loop)
            return sweeper
        }
    }
}
