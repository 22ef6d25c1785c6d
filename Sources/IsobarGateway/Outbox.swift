import Foundation

/// A connection's bounded outbound queue: the bus thread pushes text frames (their UTF-8 bytes, as
/// they came off the bus) without ever waiting,
/// the connection's event loop takes them in order (``WebSocketConnectionHandler``).
///
/// It holds at most `capacity` frames: a client that reads slower than its messages arrive fills
/// it (the event loop stops taking while the socket is not writable), and then `push` says `.full`
/// instead of growing (the gateway disconnects that client). A push into an idle queue says
/// `.queuedWake`: the pusher schedules one drain on the event loop, and further pushes say
/// `.queued` until a `pop` finds the queue empty, so a burst costs one event-loop hop, not one per
/// frame. `finish` ends the queue (dropping what is left) and records the close code to send.
final class Outbox: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    enum Push: Equatable { case queued, queuedWake, full, finished }

    /// Why and how a connection ends (a WebSocket close code and reason).
    struct Close: Sendable, Equatable {
        var code: UInt16
        var reason: String
    }

    let capacity: Int
    private let lock = NSLock()
    private var items: [[UInt8]] = []
    private var head = 0
    /// A drain is scheduled or running: the next push need not wake the event loop.
    private var draining = false
    private var finished = false
    private var close: Close?

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { lock.withLock { items.count - head } }
    var isFinished: Bool { lock.withLock { finished } }
    var closeRequest: Close? { lock.withLock { close } }

    func push(_ text: [UInt8]) -> Push {
        lock.lock()
        defer { lock.unlock() }
        if finished { return .finished }
        guard items.count - head < capacity else { return .full }
        if head > 0 && head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        items.append(text)
        if draining { return .queued }
        draining = true
        return .queuedWake
    }

    /// The next frame, or nil when there is none (or the queue is finished); a nil also ends the
    /// current drain, so the next push wakes the event loop again.
    func pop() -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        guard !finished, head < items.count else {
            draining = false
            if head > 0 {
                items.removeAll()  // an idle connection holds no queue buffer
                head = 0
            }
            return nil
        }
        let text = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return text
    }

    /// Ends the queue: frames not yet taken are dropped; the first close request given wins.
    /// Returns false when it was already finished.
    @discardableResult
    func finish(_ request: Close?) -> Bool {
        lock.withLock {
            guard !finished else { return false }
            finished = true
            close = request
            items = []
            head = 0
            return true
        }
    }
}
