#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the process may open `--max-connections` descriptors: each connection is one, and a
/// gateway that runs out of descriptors can no longer accept, so its clients time out instead of
/// being told 503. Checked once at start against `RLIMIT_NOFILE`: the soft limit is raised as far
/// as the hard limit allows, and when even that cannot hold the connections plus ``reserve``
/// (the bus, files served, the listening socket, the event loops), `--max-connections` is lowered
/// to what fits, with a warning.
public enum DescriptorBudget {
    /// Descriptors kept for everything that is not a connection.
    public static let reserve = 128

    public struct Plan: Sendable, Equatable {
        /// The soft limit to set (unchanged when it already sufficed).
        public var softLimit: UInt64
        public var maxConnections: Int
        /// Said when `--max-connections` had to be lowered.
        public var warning: String?
    }

    /// What to do with `maxConnections` under the limits `soft` and `hard` (pure: the tests' core).
    public static func plan(maxConnections: Int, soft: UInt64, hard: UInt64) -> Plan {
        let needed = UInt64(maxConnections) + UInt64(reserve)
        if soft >= needed { return Plan(softLimit: soft, maxConnections: maxConnections) }
        if hard >= needed { return Plan(softLimit: needed, maxConnections: maxConnections) }
        let fits = hard > UInt64(reserve) ? Int(min(hard - UInt64(reserve), UInt64(Int.max))) : 1
        let lowered = max(1, min(maxConnections, fits))
        return Plan(softLimit: hard, maxConnections: lowered,
                    warning: "--max-connections \(maxConnections) needs \(needed) descriptors but the limit (ulimit -n) is \(hard): "
                        + "serving at most \(lowered) connections; raise the limit to serve more")
    }

    /// Applies ``plan(maxConnections:soft:hard:)`` to this process; returns the connections to allow
    /// and the warning, if any.
    public static func apply(maxConnections: Int) -> (maxConnections: Int, warning: String?) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (maxConnections, nil) }
        let plan = plan(maxConnections: maxConnections, soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
        if plan.softLimit != UInt64(limit.rlim_cur) {
            var raised = limit
            raised.rlim_cur = rlim_t(plan.softLimit)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) != 0 {
                let fallback = Self.plan(maxConnections: maxConnections, soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_cur))
                return (fallback.maxConnections, fallback.warning)
            }
        }
        return (plan.maxConnections, plan.warning)
    }
}
