import Foundation
import IsobarCore

/// `ClientTable`'s clients by the bytes of their topic (`annotations/NAME`): a topic as received
/// (in libzmq's buffer) finds its client's slot without a `String` made or hashed per message.
///
/// Open addressing over a power-of-two table, kept at most half full, whose buckets hold the
/// topic's hash, slot, length and first bytes: a lookup costs one cache miss (a bucket), where
/// a `[String: Int]` or a bucket pointing at each topic's own array costs two or three (the
/// clients are many and each message's is another). A topic longer than a bucket holds is
/// compared with its whole copy (`topics`). Slots are numbered in the order topics were added,
/// as `ClientTable`'s entries are.
struct TopicSlots {
    /// Bytes per bucket: hash (8), slot (4), length (4), the topic's first `inline` bytes.
    private static let stride = 64
    private static let inline = stride - 16
    /// Each slot's topic, by slot (to grow, and to compare a long topic).
    private var topics: [[UInt8]] = []
    /// The buckets (`stride` bytes each); a hash of 0 marks an empty one (no topic hashes to 0).
    private var buckets = [UInt8](repeating: 0, count: 64 * stride)

    /// How many topics have a slot.
    var count: Int { topics.count }

    /// The slot of `topic`, if it has one.
    func slot(_ topic: UnsafeRawBufferPointer) -> Int? {
        let hash = Self.hash(topic)
        return buckets.withUnsafeBytes { table -> Int? in
            let mask = table.count / Self.stride - 1
            var bucket = Int(truncatingIfNeeded: hash) & mask
            while true {
                let base = bucket * Self.stride
                let held = table.loadUnaligned(fromByteOffset: base, as: UInt64.self)
                if held == 0 { return nil }
                if held == hash, Int(table.loadUnaligned(fromByteOffset: base + 12, as: UInt32.self)) == topic.count {
                    let slot = Int(table.loadUnaligned(fromByteOffset: base + 8, as: UInt32.self))
                    let same = topic.count <= Self.inline
                        ? Self.equal(UnsafeRawBufferPointer(rebasing: table[(base + 16)..<(base + 16 + topic.count)]), topic)
                        : topics[slot].withUnsafeBytes { Self.equal($0, topic) }
                    if same { return slot }
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    /// Gives `topic` (which has no slot yet) the next slot, and returns it.
    mutating func add(_ topic: UnsafeRawBufferPointer) -> Int {
        let slot = topics.count
        if (slot + 1) * 2 > buckets.count / Self.stride {
            buckets = [UInt8](repeating: 0, count: buckets.count * 2)
            for (held, bytes) in topics.enumerated() { bytes.withUnsafeBytes { place(held, $0) } }
        }
        topics.append(Array(topic))
        place(slot, topic)
        return slot
    }

    private mutating func place(_ slot: Int, _ topic: UnsafeRawBufferPointer) {
        let hash = Self.hash(topic)
        buckets.withUnsafeMutableBytes { table in
            let mask = table.count / Self.stride - 1
            var bucket = Int(truncatingIfNeeded: hash) & mask
            while table.loadUnaligned(fromByteOffset: bucket * Self.stride, as: UInt64.self) != 0 { bucket = (bucket + 1) & mask }
            let base = bucket * Self.stride
            table.storeBytes(of: hash, toByteOffset: base, as: UInt64.self)
            table.storeBytes(of: UInt32(truncatingIfNeeded: slot), toByteOffset: base + 8, as: UInt32.self)
            table.storeBytes(of: UInt32(truncatingIfNeeded: topic.count), toByteOffset: base + 12, as: UInt32.self)
            for (offset, byte) in topic.prefix(Self.inline).enumerated() { table[base + 16 + offset] = byte }
        }
    }

    /// The project's table hash (`FNV1a.tableHash`, its high half folded into the low bits the
    /// table uses: topics differ in their last characters); never 0, which marks an empty bucket.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let hash = FNV1a.tableHash(bytes: bytes, seed: 0)
        return hash == 0 ? 1 : hash
    }

    private static func equal(_ held: UnsafeRawBufferPointer, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard held.count == bytes.count else { return false }
        guard let heldBase = held.baseAddress, let base = bytes.baseAddress else { return true }
        return memcmp(heldBase, base, held.count) == 0
    }
}
