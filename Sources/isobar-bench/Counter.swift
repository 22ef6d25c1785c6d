import Synchronization

/// A counter shared between a receiving thread and a sending one, for window flow control.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func add(_ n: Int = 1) { value.add(n, ordering: .releasing) }
    var current: Int { value.load(ordering: .acquiring) }
}
