import Foundation
import Synchronization

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
final class Outbox: Sendable {
    enum Push: Equatable { case queued, queuedWake, full, finished }

    /// Why and how a connection ends (a WebSocket close code and reason).
    struct Close: Sendable, Equatable {
        var code: UInt16
        var reason: String
    }

    /// The queue and its flags, only under the mutex.
    private struct Queue {
        var items: [[UInt8]] = []
        var head = 0
        /// A drain is scheduled or running: the next push need not wake the event loop.
        var draining = false
        var finished = false
        var close: Close?
    }

    let capacity: Int
    private let queue = Mutex(Queue())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { queue.withLock { $0.items.count - $0.head } }
    var isFinished: Bool { queue.withLock { $0.finished } }
    var closeRequest: Close? { queue.withLock { $0.close } }

    func push(_ text: [UInt8]) -> Push {
        let capacity = capacity
        return queue.withLock { q in
            if q.finished { return .finished }
            guard q.items.count - q.head < capacity else { return .full }
            if q.head > 0 && q.head == q.items.count {
                q.items.removeAll(keepingCapacity: true)
                q.head = 0
            }
            q.items.append(text)
            if q.draining { return .queued }
            q.draining = true
            return .queuedWake
        }
    }

    /// The next frame, or nil when there is none (or the queue is finished); a nil also ends the
    /// current drain, so the next push wakes the event loop again.
    func pop() -> [UInt8]? {
        queue.withLock { q in
            guard !q.finished, q.head < q.items.count else {
                q.draining = false
                if q.head > 0 {
                    q.items.removeAll()  // an idle connection holds no queue buffer
                    q.head = 0
                }
                return nil
            }
            let text = q.items[q.head]
            q.head += 1
            if q.head > 64 && q.head * 2 > q.items.count {
                q.items.removeFirst(q.head)
                q.head = 0
            }
            return text
        }
    }

    /// Ends the queue: frames not yet taken are dropped; the first close request given wins.
    /// Returns false when it was already finished.
    @discardableResult
    func finish(_ request: Close?) -> Bool {
        queue.withLock { q in
            guard !q.finished else { return false }
            q.finished = true
            q.close = request
            q.items = []
            q.head = 0
            return true
        }
    }
}
