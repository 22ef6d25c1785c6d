import ArgumentParser
import IsobarCore

/// The snapshot plausibility flags `filter` and `persist` share (PROTOCOL.md, "Implausible
/// snapshots"): both must be given the same values, or they could hold different snapshots.
struct SnapshotPolicyArguments: ParsableArguments {
    @Option(help: "Refuse a snapshot whose fetchedAt is more than this many seconds ahead of this host's clock.")
    var maxFutureSkew: Double = SnapshotPolicy().maxFutureSkew
    @Option(help: "Hold back a snapshot with fewer stations than this fraction of the day's current one (or none) until a later fetch of the same content confirms it.")
    var minShrinkFraction: Double = SnapshotPolicy().minShrinkFraction
    @Flag(help: "Apply shrunk and empty snapshots at once (the operator confirms them all).")
    var acceptShrink = false

    var policy: SnapshotPolicy {
        SnapshotPolicy(maxFutureSkew: maxFutureSkew, minShrinkFraction: minShrinkFraction, acceptShrink: acceptShrink)
    }

    /// The same flags, for a child `filter` or `persist` (`isobar up` gives both the same).
    var arguments: [String] {
        ["--max-future-skew", String(maxFutureSkew), "--min-shrink-fraction", String(minShrinkFraction)] + (acceptShrink ? ["--accept-shrink"] : [])
    }

    func validate() throws {
        guard maxFutureSkew.isFinite, maxFutureSkew >= 0 else {
            throw ValidationError("--max-future-skew must be zero or a positive number of seconds, not \(maxFutureSkew)")
        }
        guard minShrinkFraction.isFinite, (0...1).contains(minShrinkFraction) else {
            throw ValidationError("--min-shrink-fraction must be between 0 and 1, not \(minShrinkFraction)")
        }
    }
}
