/// Gives every station id a small integer key, stable for the life of the filter, so per-client
/// state is a dictionary of integers rather than of strings. One instance is shared by the filter
/// and its snapshots (a class, so a new snapshot never copies the table).
///
/// The ids live once, in `ids` (the key is the position); the lookup from id to key is an
/// open-addressing table of those positions (`Int32`, -1 empty, linear probing, at most half
/// full). At a million ids that is 8 MB of slots beside the 16 MB of ids, where a
/// `[String: UInt64]` held ~48 MB of buckets (a second copy of every id plus its key, at most
/// three quarters full): the largest single saving towards the filter's memory target at 1M
/// stations (BENCHMARKS.md). The hash is FNV-1a started from a per-instance random seed, so ids
/// crafted to collide in one process do not collide in another (the same reason Swift seeds
/// `Hasher`): a hostile feed cannot turn lookups quadratic.
public final class KeyInterner {
    private var ids: [String] = []
    private var slots: [Int32]
    private var mask: Int
    private let seed: UInt64

    public init() {
        slots = [Int32](repeating: -1, count: 16)
        mask = 15
        seed = UInt64.random(in: .min ... .max)
    }

    public var count: Int { ids.count }

    public func existingKey(for id: String) -> UInt64? {
        var slot = startSlot(for: id)
        while true {
            let position = slots[slot]
            if position < 0 { return nil }
            if IDBytes.equal(ids[Int(position)], id) { return UInt64(position) }
            slot = (slot + 1) & mask
        }
    }

    /// Room for `additional` more ids without growing the table while a large snapshot is interned.
    public func reserve(_ additional: Int) {
        ids.reserveCapacity(ids.count + additional)
        grow(toHold: ids.count + additional)
    }

    public func key(for id: String) -> UInt64 {
        key(for: id, hash: FNV1a.tableHash(id, seed: seed))
    }

    /// The key of each of `ids`, in order: exactly what ``key(for:)`` gives called on each in turn
    /// (an id seen earlier in `ids` gets that earlier key), but faster for a snapshot's million ids.
    /// Most of a lone `key(for:)` is two cache misses waited for one after the other: the slot
    /// (8 MB of them at a million ids), then the id it points at. Here the ids go in groups: each
    /// group's slots, and the ids they point at, are loaded first in a loop that only loads, so
    /// the misses of the whole group overlap; then each id is probed and inserted in order, on
    /// lines now in cache. The loads are only a warm-up: the probes read the table as it is then.
    public func keys<IDs: RandomAccessCollection>(for ids: IDs) -> [UInt64] where IDs.Element == String, IDs.Index == Int {
        let group = 16
        var result: [UInt64] = []
        result.reserveCapacity(ids.count)
        // One group's ids and hashes, read from `ids` once (plain index loops: the gate counts a
        // debug build, where iterating slices of a generic collection cost more than it saved).
        var pending = [(id: String, hash: UInt64)](repeating: ("", 0), count: group)
        var touched: UInt64 = 0
        var start = ids.startIndex
        while start < ids.endIndex {
            let count = min(group, ids.endIndex - start)
            let mask = self.mask
            slots.withUnsafeBufferPointer { slots in
                self.ids.withUnsafeBufferPointer { known in
                    for j in 0..<count {
                        let id = ids[start + j]
                        let hash = FNV1a.tableHash(id, seed: seed)
                        pending[j] = (id, hash)
                        let position = slots[Int(truncatingIfNeeded: hash) & mask]
                        touched &+= UInt64(bitPattern: Int64(position))
                        if position >= 0, let held = known.baseAddress {  // the first word of the id it points at (a small id's bytes)
                            touched &+= UnsafeRawPointer(held + Int(position)).load(as: UInt64.self)
                        }
                    }
                }
            }
            for j in 0..<count { result.append(key(for: pending[j].id, hash: pending[j].hash)) }
            start += count
        }
        warmUp &+= touched  // kept, so the loads that warm the caches are not optimised away
        return result
    }

    /// Where the warm-up loads of ``keys(for:)`` go (their sum, never read for anything else).
    private var warmUp: UInt64 = 0

    private func key(for id: String, hash: UInt64) -> UInt64 {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let position = slots[slot]
            if position < 0 { break }
            if IDBytes.equal(ids[Int(position)], id) { return UInt64(position) }
            slot = (slot + 1) & mask
        }
        let key = ids.count
        ids.append(id)
        slots[slot] = Int32(key)
        if ids.count * 2 > slots.count { grow(toHold: ids.count) }
        return UInt64(key)
    }

    public func id(for key: UInt64) -> String? {
        key < UInt64(ids.count) ? ids[Int(key)] : nil
    }

    /// Rebuilds the slots with at least twice `count` of them (a power of two), if needed.
    private func grow(toHold count: Int) {
        var capacity = slots.count
        while capacity < count * 2 { capacity <<= 1 }
        guard capacity > slots.count else { return }
        slots = [Int32](repeating: -1, count: capacity)
        mask = capacity - 1
        for (position, id) in ids.enumerated() {
            var slot = startSlot(for: id)
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position)
        }
    }

    @inline(__always) private func startSlot(for id: String) -> Int {
        Int(truncatingIfNeeded: FNV1a.tableHash(id, seed: seed)) & mask
    }
}
