/// Turns the ``AcceptanceReport`` in each tally of the filter into what a gateway reports: how much
/// each counter grew since the last tally (for `/metrics` counters that never go down, although a
/// restarted filter counts from 0 again), what to log (a snapshot newly held back, a hold released,
/// snapshots refused), and while anything is held back, the reason `/healthz` says "degraded".
/// Pure: the gateway feeds it the reports of one filter shard (shard 0: every shard judges every
/// snapshot alike) in arrival order.
public struct AcceptanceWatch: Sendable {
    /// Growth of each counter since the previous report.
    public struct Growth: Sendable, Equatable {
        public var refusedFuture = 0
        public var heldShrunk = 0
        public var heldEmpty = 0
        public var confirmed = 0

        public init(refusedFuture: Int = 0, heldShrunk: Int = 0, heldEmpty: Int = 0, confirmed: Int = 0) {
            self.refusedFuture = refusedFuture
            self.heldShrunk = heldShrunk
            self.heldEmpty = heldEmpty
            self.confirmed = confirmed
        }
    }

    /// A line to log, with its level.
    public enum Event: Sendable, Equatable {
        case warning(String)
        case notice(String)
    }

    private var last: AcceptanceReport?

    public init() {}

    /// The snapshots held back as of the latest report.
    public var holds: [AcceptanceReport.Hold] { last?.holds ?? [] }

    /// Why health is degraded (nil: nothing held back).
    public var degradedReason: String? {
        guard !holds.isEmpty else { return nil }
        return holds.map(Self.describe).joined(separator: "; ")
    }

    /// Takes the next report: the counters' growth (a counter lower than before means the filter
    /// restarted, so all of it is new) and the events to log.
    public mutating func observe(_ report: AcceptanceReport) -> (growth: Growth, events: [Event]) {
        let before = last ?? AcceptanceReport()
        func grown(_ now: Int, _ then: Int) -> Int { now >= then ? now - then : now }
        let growth = Growth(refusedFuture: grown(report.refusedFuture, before.refusedFuture),
                            heldShrunk: grown(report.heldShrunk, before.heldShrunk),
                            heldEmpty: grown(report.heldEmpty, before.heldEmpty),
                            confirmed: grown(report.confirmed, before.confirmed))
        var events: [Event] = []
        if growth.refusedFuture > 0 {
            events.append(.warning("the filter refused \(growth.refusedFuture) snapshot(s) fetched too far in the future (\(report.refusedFuture) since it started)"))
        }
        for hold in report.holds where !before.holds.contains(hold) {
            events.append(.warning(Self.describe(hold)))
        }
        for hold in before.holds where !report.holds.contains(where: { $0.day == hold.day && $0.snapshot == hold.snapshot }) {
            let how = growth.confirmed > 0 ? "applied: a later fetch confirmed it" : "released: a newer fetch replaced it"
            events.append(.notice("snapshot \(hold.snapshot) of \(hold.day.rawValue) no longer held back (\(how))"))
        }
        last = report
        return (growth, events)
    }

    static func describe(_ hold: AcceptanceReport.Hold) -> String {
        "the filter holds back snapshot \(hold.snapshot) of \(hold.day.rawValue) (\(hold.count) station(s) where the day's has \(hold.of)) until a later fetch of the same content confirms it"
    }
}
