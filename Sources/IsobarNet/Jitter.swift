/// A source of uniform draws in [0, 1) for backoff jitter, injectable so tests can pin the draws.
public struct Jitter: Sendable {
    private let draw: @Sendable () -> Double

    public init(_ draw: @escaping @Sendable () -> Double) {
        self.draw = draw
    }

    /// The next draw, clamped into [0, 1].
    public func next() -> Double {
        let value = draw()
        return value.isFinite ? min(max(value, 0), 1) : 0
    }

    /// Draws from the system's random number generator.
    public static let system = Jitter { Double.random(in: 0..<1) }

    /// Always the same draw: `fixed(1)` gives the ceiling, `fixed(0)` retries at once.
    public static func fixed(_ value: Double) -> Jitter { Jitter { value } }
}
