/// The ids of the stations a feed has kept so far, for rejecting a second record with the same id,
/// without a second copy of any id: an open-addressing table (linear probing, at most half full)
/// of positions in the caller's own `[Station]`, compared against `stations[position].id`.
///
/// At a million stations that is 8 MB of slots, where a ``KeyInterner`` (which must own its ids)
/// held 8 MB of slots plus a 16 MB array of the ids again, doubled while it grew: the part of
/// `fetch`'s peak that the set of ids was (BENCHMARKS.md, fetch at 1M). The hash is FNV-1a from a
/// per-instance random seed, so ids crafted to collide cannot make a hostile feed quadratic.
///
/// A slot's 32 bits hold the position plus one in the low `positionBits` (the table's log2 size:
/// a half-full table never holds a position that needs more) and, above them, a tag of the id's
/// hash; 0 is an empty slot. A probe compares an id only when the tags agree, so it seldom reads
/// a station of the 88 MB array (a cache miss, a third of an insert's time when every occupied
/// slot on the way was compared).
struct StationIDSet {
    private var slots: [UInt32]
    private var mask: Int
    /// log2 of the slot count: the bits of a slot that hold the position plus one.
    private var positionBits: Int
    private var count = 0
    private let seed: UInt64

    var isEmpty: Bool { count == 0 }

    /// Room for about `expected` ids before the table grows.
    init(expected: Int = 0) {
        var bits = 4
        while 1 << bits < max(expected, 8) * 2 { bits += 1 }
        slots = [UInt32](repeating: 0, count: 1 << bits)
        mask = (1 << bits) - 1
        positionBits = bits
        seed = UInt64.random(in: .min ... .max)
    }

    /// Records `stations[position].id` (the station just appended at `position`); false, and
    /// nothing recorded, when an earlier station of `stations` has that id.
    mutating func insert(position: Int, of stations: [Station]) -> Bool {
        // Only a caller that skips positions needs this (the fetcher's are 0, 1, 2, ...).
        while position + 1 > mask { grow(stations) }
        let id = stations[position].id
        let hash = FNV1a.tableHash(id, seed: seed)
        var slot = Int(truncatingIfNeeded: hash) & mask
        let tag = tag(of: hash)
        while true {
            let held = slots[slot]
            if held == 0 { break }
            if held & ~UInt32(truncatingIfNeeded: mask) == tag && IDBytes.equal(stations[Int(held) & mask - 1].id, id) { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = tag | UInt32(truncatingIfNeeded: position + 1)
        count += 1
        if count * 2 > slots.count { grow(stations) }
        return true
    }

    /// The bits of `hash` above the position bits: from its high half, which the slot (its low
    /// bits) does not use.
    @inline(__always) private func tag(of hash: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: hash >> 32) & ~UInt32(truncatingIfNeeded: mask)
    }

    private mutating func grow(_ stations: [Station]) {
        let old = slots
        positionBits += 1
        slots = [UInt32](repeating: 0, count: 1 << positionBits)
        mask = slots.count - 1
        for held in old where held != 0 {
            let position = Int(held) & (old.count - 1) - 1
            let hash = FNV1a.tableHash(stations[position].id, seed: seed)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = tag(of: hash) | UInt32(truncatingIfNeeded: position + 1)
        }
    }
}
