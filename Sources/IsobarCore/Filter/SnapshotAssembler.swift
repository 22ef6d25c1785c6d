/// Collects `station` messages until their `snapshot` end marker completes them.
///
/// Stations normally arrive in `seq` order (ZeroMQ keeps one publisher's order) and are simply
/// appended; one arriving early waits in a side table until the gap before it fills. Duplicates
/// (two publishers replaying the same snapshot) are ignored, and a gap is detected: a snapshot is
/// complete only when every seq 0..<count arrived. Only a few snapshots are assembled at once, and
/// a seq beyond `maxStations` is refused, so a broken or hostile publisher cannot grow memory
/// without bound. The completed array is handed over without a copy.
public struct SnapshotAssembler: Sendable {
    public enum Outcome: Sendable {
        case complete([Station])
        /// The end marker arrived but stations were missing: ask for a resync.
        case incomplete(received: Int, expected: Int)
        /// The end marker names a snapshot the assembler never saw stations for (or it was evicted).
        case unknown
    }

    private struct Pending: Sendable {
        var stations: [Station] = []
        var early: [Int: Station] = [:]
        var lastTouched: Int
        var received: Int { stations.count + early.count }
    }

    public let maxStations: Int
    public let maxPending: Int
    private var pending: [String: Pending] = [:]
    /// Where the last station's snapshot is in `pending`: a dictionary index stays valid while
    /// only values change, so every insertion or removal sets it to nil.
    private var lastIndex: [String: Pending].Index?
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
        let index: [String: Pending].Index
        if let last = lastIndex, IDBytes.equal(pending.keys[last], message.snapshot) {
            index = last  // the usual case: the same snapshot as the line before, no hashing
        } else {
            guard let found = pendingIndex(named: message.snapshot) else { return }
            index = found
        }
        place(message.station, seq: message.seq, at: index)
    }

    /// Adds one station whose snapshot id is `snapshot`'s bytes (UTF-8) and whose seq the caller
    /// checked is below `maxStations` (the filter's in-place station reader): the same as
    /// `add(_:)`, without making a `String` of the id for every line of the same snapshot.
    mutating func add(_ station: consuming Station, seq: Int, snapshot: UnsafeRawBufferPointer) {
        guard seq < maxStations else { return }
        clock += 1
        let index: [String: Pending].Index
        if let last = lastIndex, IDBytes.equal(pending.keys[last], snapshot) {
            index = last
        } else {
            guard let found = pendingIndex(named: String(decoding: snapshot, as: UTF8.self)) else { return }
            index = found
        }
        place(station, seq: seq, at: index)
    }

    /// Where `snapshot` is in `pending`, added (evicting the least recently touched) when new.
    private mutating func pendingIndex(named snapshot: String) -> [String: Pending].Index? {
        if let found = pending.index(forKey: snapshot) { return found }
        lastIndex = nil
        if pending.count >= maxPending, let oldest = pending.min(by: { $0.value.lastTouched < $1.value.lastTouched })?.key {
            pending[oldest] = nil
        }
        pending[snapshot] = Pending(lastTouched: clock)
        return pending.index(forKey: snapshot)
    }

    private mutating func place(_ station: consuming Station, seq: Int, at index: [String: Pending].Index) {
        lastIndex = index
        // Mutated in place through the index (no copy of the pending arrays, no second lookup).
        pending.values[index].lastTouched = clock
        let held = pending.values[index].stations.count
        if seq == held {
            pending.values[index].stations.append(station)
            // The usual case has nothing waiting: no hashing of the next seq.
            guard !pending.values[index].early.isEmpty else { return }
            while let next = pending.values[index].early.removeValue(forKey: pending.values[index].stations.count) {
                pending.values[index].stations.append(next)
            }
        } else if seq > held {
            pending.values[index].early[seq] = station
        }  // else: a duplicate of a station already held
    }

    /// Completes (or fails) the snapshot named by `end`, forgetting its pending state either way.
    public mutating func finish(_ end: SnapshotEnd) -> Outcome {
        lastIndex = nil
        if end.count == 0 {
            pending[end.snapshot] = nil
            return .complete([])
        }
        guard let entry = pending.removeValue(forKey: end.snapshot) else { return .unknown }
        guard entry.stations.count >= end.count else {
            return .incomplete(received: entry.received, expected: end.count)
        }
        return .complete(entry.stations.count == end.count ? entry.stations : Array(entry.stations.prefix(end.count)))
    }

    /// Drops a pending snapshot (one that is already current, so assembling it again is waste).
    public mutating func discard(_ snapshot: String) {
        lastIndex = nil
        pending[snapshot] = nil
    }

    public var pendingCount: Int { pending.count }
}
