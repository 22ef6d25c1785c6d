import Foundation

/// `ClientTable`'s clients by the bytes of their topic (`annotations/NAME`): a topic as received
/// (in libzmq's buffer) finds its client's slot without a `String` made or hashed per message.
///
/// Open addressing over a power-of-two table of slot numbers, kept at most half full; each slot
/// keeps its topic's bytes (to compare) and hash (to grow without hashing again). Slots are
/// numbered in the order topics were added, as `ClientTable`'s entries are.
struct TopicSlots {
    /// Each slot's topic, by slot.
    private var topics: [[UInt8]] = []
    /// Each slot's topic's hash, by slot.
    private var hashes: [Int] = []
    /// Slot numbers by hash, probing linearly; -1 is empty.
    private var buckets = [Int](repeating: -1, count: 64)

    /// How many topics have a slot.
    var count: Int { topics.count }

    /// The slot of `topic`, if it has one.
    func slot(_ topic: UnsafeRawBufferPointer) -> Int? {
        let mask = buckets.count - 1
        var bucket = Self.hash(topic) & mask
        while true {
            let slot = buckets[bucket]
            if slot < 0 { return nil }
            if Self.equal(topics[slot], topic) { return slot }
            bucket = (bucket + 1) & mask
        }
    }

    /// Gives `topic` (which has no slot yet) the next slot, and returns it.
    mutating func add(_ topic: UnsafeRawBufferPointer) -> Int {
        let slot = topics.count
        if (slot + 1) * 2 > buckets.count { grow() }
        let hash = Self.hash(topic)
        topics.append(Array(topic))
        hashes.append(hash)
        place(slot, hash: hash)
        return slot
    }

    private mutating func place(_ slot: Int, hash: Int) {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = slot
    }

    private mutating func grow() {
        buckets = [Int](repeating: -1, count: buckets.count * 2)
        for slot in hashes.indices { place(slot, hash: hashes[slot]) }
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return hasher.finalize()
    }

    private static func equal(_ held: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard held.count == bytes.count else { return false }
        return held.withUnsafeBytes { held in
            guard let heldBase = held.baseAddress, let base = bytes.baseAddress else { return true }
            return memcmp(heldBase, base, held.count) == 0
        }
    }
}
