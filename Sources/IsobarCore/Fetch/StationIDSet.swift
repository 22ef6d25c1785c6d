/// The ids of the stations a feed has kept so far, for rejecting a second record with the same id,
/// without a second copy of any id: an open-addressing table (linear probing, at most half full)
/// of positions in the caller's own `[Station]`, compared against `stations[position].id`.
///
/// At a million stations that is 8 MB of slots, where a ``KeyInterner`` (which must own its ids)
/// held 8 MB of slots plus a 16 MB array of the ids again, doubled while it grew: the part of
/// `fetch`'s peak that the set of ids was (BENCHMARKS.md, fetch at 1M). The hash is FNV-1a from a
/// per-instance random seed, so ids crafted to collide cannot make a hostile feed quadratic.
struct StationIDSet {
    private var slots: [Int32]
    private var mask: Int
    private var count = 0
    private let seed: UInt64

    var isEmpty: Bool { count == 0 }

    /// Room for about `expected` ids before the table grows.
    init(expected: Int = 0) {
        var capacity = 16
        while capacity < max(expected, 8) * 2 { capacity <<= 1 }
        slots = [Int32](repeating: -1, count: capacity)
        mask = capacity - 1
        seed = UInt64.random(in: .min ... .max)
    }

    /// Records `stations[position].id` (the station just appended at `position`); false, and
    /// nothing recorded, when an earlier station of `stations` has that id.
    mutating func insert(position: Int, of stations: [Station]) -> Bool {
        let id = stations[position].id
        var slot = startSlot(for: id)
        while true {
            let held = slots[slot]
            if held < 0 { break }
            if stations[Int(held)].id == id { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(truncatingIfNeeded: position)
        count += 1
        if count * 2 > slots.count { grow(stations) }
        return true
    }

    private mutating func grow(_ stations: [Station]) {
        let old = slots
        slots = [Int32](repeating: -1, count: old.count * 2)
        mask = slots.count - 1
        for position in old where position >= 0 {
            var slot = startSlot(for: stations[Int(position)].id)
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = position
        }
    }

    @inline(__always) private func startSlot(for id: String) -> Int {
        Int(truncatingIfNeeded: FNV1a.tableHash(id, seed: seed)) & mask
    }
}
