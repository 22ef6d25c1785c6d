/// Collects `station` messages until their `snapshot` end marker completes them.
///
/// Stations are slotted by `seq`, so duplicates (two publishers replaying the same snapshot) are
/// harmless and a gap is detected: a snapshot is complete only when every seq 0..<count arrived.
/// Only a few snapshots are assembled at once, and a seq beyond `maxStations` is refused, so a
/// broken or hostile publisher cannot grow memory without bound.
public struct SnapshotAssembler: Sendable {
    public enum Outcome: Sendable {
        case complete([Station])
        /// The end marker arrived but stations were missing: ask for a resync.
        case incomplete(received: Int, expected: Int)
        /// The end marker names a snapshot the assembler never saw stations for (or it was evicted).
        case unknown
    }

    private struct Pending: Sendable {
        var day: Day
        var slots: [Station?] = []
        var received = 0
        var lastTouched: Int
    }

    public let maxStations: Int
    public let maxPending: Int
    private var pending: [String: Pending] = [:]
    private var clock = 0

    public init(maxStations: Int = 5_000_000, maxPending: Int = 4) {
        self.maxStations = maxStations
        self.maxPending = maxPending
    }

    /// Adds one station. Throws when its seq is beyond the limit.
    public mutating func add(_ message: StationMessage) throws(MessageError) {
        guard message.seq < maxStations else {
            throw MessageError("seq \(message.seq) exceeds the largest snapshot accepted (\(maxStations) stations)")
        }
        clock += 1
        if pending[message.snapshot] == nil {
            if pending.count >= maxPending, let oldest = pending.min(by: { $0.value.lastTouched < $1.value.lastTouched })?.key {
                pending[oldest] = nil
            }
            pending[message.snapshot] = Pending(day: message.day, lastTouched: clock)
        }
        pending[message.snapshot]!.lastTouched = clock
        var entry = pending.removeValue(forKey: message.snapshot)!
        if message.seq >= entry.slots.count {
            let newCount = max(message.seq + 1, min(maxStations, entry.slots.count * 2))
            entry.slots.append(contentsOf: repeatElement(nil, count: newCount - entry.slots.count))
        }
        if entry.slots[message.seq] == nil { entry.received += 1 }
        entry.slots[message.seq] = message.station
        pending[message.snapshot] = entry
    }

    /// Completes (or fails) the snapshot named by `end`, forgetting its pending state either way.
    public mutating func finish(_ end: SnapshotEnd) -> Outcome {
        if end.count == 0 {
            pending[end.snapshot] = nil
            return .complete([])
        }
        guard let entry = pending.removeValue(forKey: end.snapshot) else { return .unknown }
        guard entry.received == end.count, entry.slots.count >= end.count else {
            return .incomplete(received: entry.received, expected: end.count)
        }
        var stations: [Station] = []
        stations.reserveCapacity(end.count)
        for k in 0..<end.count {
            guard let station = entry.slots[k] else { return .incomplete(received: entry.received, expected: end.count) }
            stations.append(station)
        }
        return .complete(stations)
    }

    /// Drops a pending snapshot (one that is already current, so assembling it again is waste).
    public mutating func discard(_ snapshot: String) {
        pending[snapshot] = nil
    }

    public var pendingCount: Int { pending.count }
}
