/// Decides whether a complete snapshot may replace a day's snapshot: the one rule the filter and
/// persist both apply (PROTOCOL.md, "Implausible snapshots"), so what the filter shows and what the
/// store replays never disagree. Pure: the caller passes its wall clock in.
///
/// Three steps, in this order, after the newest-wins check (`SnapshotRank`):
/// 1. `checkClock`: a `fetchedAt` more than `maxFutureSkew` ahead is refused outright (a forged
///    or badly clocked snapshot would otherwise outrank every honest fetch until its time came).
/// 2. `confirmation(of:)`: an end marker that re-announces the held-back snapshot of its day (same
///    id, so the same content, with a later `fetchedAt`) confirms it; its stations are handed back
///    (for `judge`, which then applies them).
/// 3. `judge`: a snapshot much smaller than the held one (empty, or under `minShrinkFraction`) is
///    held back, once; the same content arriving again from a later fetch is applied.
public struct SnapshotAcceptance: Sendable {
    public enum Verdict: Sendable, Equatable {
        /// Plausible, or confirmed: replace the day's snapshot.
        case apply
        /// Implausibly shrunk: keep the day's snapshot, report, wait for a confirmation.
        case hold(count: Int, held: Int)
    }

    /// A shrunk snapshot held back, waiting for a later fetch of the same content.
    private struct Candidate: Sendable {
        var id: String
        var fetchedAt: Double
        var stations: [Station]
        /// Stations of the day's snapshot it would have replaced.
        var held: Int
    }

    public let policy: SnapshotPolicy
    private var candidates: [Day: Candidate] = [:]
    /// Snapshots refused for a future `fetchedAt` so far (for logs and status lines).
    public private(set) var refusedFuture = 0
    /// Shrunk (non-empty) snapshots held back so far.
    public private(set) var heldShrunk = 0
    /// Empty snapshots held back so far.
    public private(set) var heldEmpty = 0
    /// Held-back snapshots applied since because a later fetch of the same content confirmed them.
    public private(set) var confirmed = 0

    public init(policy: SnapshotPolicy = SnapshotPolicy()) {
        self.policy = policy
    }

    /// Step 1: seconds `end.fetchedAt` is ahead of `now` when that is beyond the allowed skew
    /// (the snapshot must be refused; counted), or nil.
    public mutating func checkClock(_ end: SnapshotEnd, now: Double) -> Double? {
        guard let ahead = policy.futureExcess(fetchedAt: end.fetchedAt, now: now) else { return nil }
        refusedFuture += 1
        return ahead
    }

    /// Step 2: the stations of the day's held-back snapshot when `end` confirms it (same id, later
    /// `fetchedAt`), to be passed to `judge`, which applies them and forgets the candidate.
    public func confirmation(of end: SnapshotEnd) -> [Station]? {
        guard let candidate = candidates[end.day], candidate.id == end.snapshot, end.fetchedAt > candidate.fetchedAt else {
            return nil
        }
        return candidate.stations
    }

    /// Step 2 with the assembly: the held-back stations `end` confirms, else what `assembler`
    /// completes for it (the same in the filter and persist).
    public func complete(_ end: SnapshotEnd, assembler: inout SnapshotAssembler) -> SnapshotAssembler.Outcome {
        guard let confirmed = confirmation(of: end) else { return assembler.finish(end) }
        assembler.discard(end.snapshot)
        return .complete(confirmed)
    }

    /// Step 3: whether the complete snapshot `end` with `stations` may replace one of `held`
    /// stations (nil: the day holds nothing, so anything is applied). A shrunk one is kept as the
    /// day's candidate (replacing an earlier candidate) and counted.
    public mutating func judge(_ end: SnapshotEnd, stations: [Station], held: Int?) -> Verdict {
        if let held, !policy.acceptShrink, policy.isShrunk(count: stations.count, held: held) {
            if let candidate = candidates[end.day], candidate.id == end.snapshot, end.fetchedAt > candidate.fetchedAt {
                candidates[end.day] = nil
                confirmed += 1
                return .apply
            }
            if candidates[end.day]?.id != end.snapshot {
                if stations.isEmpty { heldEmpty += 1 } else { heldShrunk += 1 }
                candidates[end.day] = Candidate(id: end.snapshot, fetchedAt: end.fetchedAt, stations: stations, held: held)
            }
            return .hold(count: stations.count, held: held)
        }
        candidates[end.day] = nil
        return .apply
    }

    /// The id of the day's held-back snapshot, if any.
    public func candidate(_ day: Day) -> String? { candidates[day]?.id }

    /// The counters and the snapshots held back now, for the tally (``AcceptanceReport``).
    public var report: AcceptanceReport {
        AcceptanceReport(refusedFuture: refusedFuture, heldShrunk: heldShrunk, heldEmpty: heldEmpty, confirmed: confirmed,
                         holds: Day.allCases.compactMap { day in
                             candidates[day].map { AcceptanceReport.Hold(day: day, snapshot: $0.id, count: $0.stations.count, of: $0.held) }
                         })
    }

    /// The line reporting a refused future snapshot, the same words in every stage.
    public func futureMessage(_ end: SnapshotEnd, ahead: Double) -> String {
        "snapshot \(end.snapshot) of \(end.day.rawValue) was fetched \(Int(ahead.rounded())) s in the future (more than \(Int(policy.maxFutureSkew)) s ahead of this clock); refused (\(refusedFuture) so far)"
    }

    /// The line reporting a held-back shrunk snapshot.
    public func holdMessage(_ end: SnapshotEnd, count: Int, held: Int) -> String {
        "snapshot \(end.snapshot) of \(end.day.rawValue) has \(count) station(s), fewer than \(Int((policy.minShrinkFraction * 100).rounded()))% of the \(held) held; kept the previous one until a later fetch of the same content confirms it (\(heldShrunk + heldEmpty) held so far)"
    }
}
