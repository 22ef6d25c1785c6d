#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real-time clock in Unix seconds: what `observedAt` and `fetchedAt` are measured in, so
/// what staleness is judged by (the filter's other timing uses a monotonic clock).
public enum WallClock {
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
