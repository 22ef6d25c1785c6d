import Foundation

/// A connection's bounded outbound queue: the bus thread pushes text frames without ever waiting,
/// the connection's writer task takes them in order.
///
/// It holds at most `capacity` frames: a client that reads slower than its messages arrive fills
/// it, and then `push` says `.full` instead of growing (the gateway disconnects that client).
/// `finish` ends the queue (dropping what is left) and records the close code the writer sends.
final class Outbox: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    enum Push: Equatable { case queued, full, finished }

    /// Why and how a connection ends (a WebSocket close code and reason).
    struct Close: Sendable, Equatable {
        var code: UInt16
        var reason: String
    }

    let capacity: Int
    private let lock = NSLock()
    private var items: [String] = []
    private var head = 0
    private var waiter: CheckedContinuation<String?, Never>?
    private var finished = false
    private var close: Close?

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { lock.withLock { items.count - head } }
    var isFinished: Bool { lock.withLock { finished } }
    var closeRequest: Close? { lock.withLock { close } }

    func push(_ text: String) -> Push {
        lock.lock()
        if finished {
            lock.unlock()
            return .finished
        }
        if let waiting = waiter {
            waiter = nil
            lock.unlock()
            waiting.resume(returning: text)
            return .queued
        }
        guard items.count - head < capacity else {
            lock.unlock()
            return .full
        }
        if head > 0 && head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        items.append(text)
        lock.unlock()
        return .queued
    }

    /// The next frame, or nil once finished (or when the waiting task is cancelled).
    func next() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                lock.lock()
                if head < items.count {
                    let text = items[head]
                    head += 1
                    if head > 64 && head * 2 > items.count {
                        items.removeFirst(head)
                        head = 0
                    }
                    lock.unlock()
                    continuation.resume(returning: text)
                } else if finished || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            finish(nil)
        }
    }

    /// Ends the queue: frames not yet taken are dropped; the first close request given wins.
    /// Returns false when it was already finished.
    @discardableResult
    func finish(_ request: Close?) -> Bool {
        let (waiting, first): (CheckedContinuation<String?, Never>?, Bool) = lock.withLock {
            guard !finished else { return (nil, false) }
            finished = true
            close = request
            items = []
            head = 0
            let waiting = waiter
            waiter = nil
            return (waiting, true)
        }
        waiting?.resume(returning: nil)
        return first
    }
}
