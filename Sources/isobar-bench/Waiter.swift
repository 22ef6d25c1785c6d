import Foundation

/// Hands the time an awaited update was applied from the receive thread to the waiting one.
final class Waiter: @unchecked Sendable {
    // @unchecked: fields under `lock`.
    private let lock = NSLock()
    private let semaphore = DispatchSemaphore(value: 0)
    private var client = ""
    private var time = 0.0
    private var count = 0

    func expect(_ client: String) {
        lock.lock(); self.client = client; lock.unlock()
    }

    /// Called on the receive thread.
    func applied(client: String, count: Int, time: Double) {
        lock.lock()
        guard client == self.client else { lock.unlock(); return }
        self.time = time
        self.count = count
        lock.unlock()
        semaphore.signal()
    }

    /// The apply time and annotation count, or nil after `timeout` seconds.
    func wait(timeout: Double) -> (time: Double, count: Int)? {
        guard semaphore.wait(timeout: .now() + timeout) == .success else { return nil }
        lock.lock(); defer { lock.unlock() }
        return (time, count)
    }
}
