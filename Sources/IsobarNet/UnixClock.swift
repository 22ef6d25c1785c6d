import Foundation

/// The current time as Unix seconds, the unit of `fetchedAt`, `Last-Modified` and every schedule
/// here. Fetcher and sample feed take a clock closure so tests can move time without waiting.
public enum UnixClock {
    @Sendable public static func now() -> Double { Date().timeIntervalSince1970 }
}
