/// The items of an ``AnnotationSet`` by id: a dense array of items beside an open-addressing
/// table of their positions (`Int32`, -1 empty, linear probing, at most half full), keyed by
/// the id's UTF-8 bytes.
///
/// Why not `[String: Item]`: a client applies every update, and in the `clients` benchmark a
/// third of its time went to the dictionary (SipHash of every id, then creating a `String` for
/// each removed id only to look it up). Here an id removed is looked up by the bytes of the
/// message it came in (no `String`), hashed with FNV-1a from a per-table random seed (as
/// ``KeyInterner``: ids crafted to collide in one process do not in another). Ids are equal
/// when their bytes are, as the filter and the protocol compare them (a Swift `String` key would
/// also merge two spellings of one canonically equivalent text).
struct AnnotationTable: Sendable {
    private(set) var items: [AnnotationSet.Item] = []
    /// `hashes[i]` is the table hash of `items[i].id`.
    private var hashes: [UInt64] = []
    private var slots = [Int32](repeating: -1, count: 16)
    private var mask = 15
    private let seed = UInt64.random(in: .min ... .max)

    var count: Int { items.count }

    /// Adds `item`, or replaces the item with its id.
    mutating func upsert(_ item: AnnotationSet.Item) {
        var id = item.id
        let (hash, slot, found) = id.withUTF8 { locate(UnsafeRawBufferPointer($0)) }
        if found {
            items[Int(slots[slot])] = item
            return
        }
        slots[slot] = Int32(items.count)
        items.append(item)
        hashes.append(hash)
        if items.count * 2 > slots.count { grow() }
    }

    /// Adds or updates the item whose id is these UTF-8 bytes: `update` sets every member but the
    /// id on the item held (which keeps its id, the same bytes), or `make` makes the new item with
    /// the id given (a `String` made from the bytes). The same items as ``upsert(_:)`` with the
    /// whole item, without a `String` made and released for an id the table holds, or hashed
    /// twice. A new item is made whole, not made with placeholders and then set member by member
    /// (which retained and released each text twice).
    @inline(__always)
    mutating func upsert(id: UnsafeRawBufferPointer, update: (inout AnnotationSet.Item) -> Void, make: (String) -> AnnotationSet.Item) {
        let (hash, slot, found) = locate(id)
        if found {
            update(&items[Int(slots[slot])])
            return
        }
        slots[slot] = Int32(items.count)
        items.append(make(String(decoding: id, as: UTF8.self)))
        hashes.append(hash)
        if items.count * 2 > slots.count { grow() }
    }

    /// Removes the item whose id is these UTF-8 bytes, if any.
    mutating func remove(bytes id: UnsafeRawBufferPointer) {
        let (_, slot, found) = locate(id)
        if found { remove(slot: slot) }
    }

    /// Removes the item with this id, if any.
    mutating func remove(_ id: String) {
        var id = id
        id.withUTF8 { remove(bytes: UnsafeRawBufferPointer($0)) }
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        for slot in slots.indices { slots[slot] = -1 }
    }

    /// The item with this id.
    func item(_ id: String) -> AnnotationSet.Item? {
        var id = id
        let (_, slot, found) = id.withUTF8 { locate(UnsafeRawBufferPointer($0)) }
        return found ? items[Int(slots[slot])] : nil
    }

    /// The id's hash and its slot: the one holding it (`found`), or the empty one it would take.
    private func locate(_ id: UnsafeRawBufferPointer) -> (hash: UInt64, slot: Int, found: Bool) {
        let hash = FNV1a.tableHash(bytes: id, seed: seed)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let position = Int(slots[slot])
            if position < 0 { return (hash, slot, false) }
            if hashes[position] == hash && IDBytes.equal(items[position].id, id) { return (hash, slot, true) }
            slot = (slot + 1) & mask
        }
    }

    /// Empties `slot` (shifting back the entries after it that probed past it) and closes the
    /// gap in `items` with the last item.
    private mutating func remove(slot: Int) {
        let position = Int(slots[slot])
        var hole = slot
        var next = (hole + 1) & mask
        while slots[next] >= 0 {
            let home = Int(truncatingIfNeeded: hashes[Int(slots[next])]) & mask
            // The entry at `next` may move back to `hole` unless its home lies after the hole.
            if (next &- home) & mask >= (next &- hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = -1
        let last = items.count - 1
        if position != last {
            var moved = Int(truncatingIfNeeded: hashes[last]) & mask
            while slots[moved] != Int32(last) { moved = (moved + 1) & mask }
            slots[moved] = Int32(position)
            // The last item moves into the hole (no swap: the removed item is released once).
            items[position] = items.removeLast()
            hashes[position] = hashes.removeLast()
        } else {
            items.removeLast()
            hashes.removeLast()
        }
    }

    /// Twice the slots, every position placed again.
    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for (position, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position)
        }
    }
}
