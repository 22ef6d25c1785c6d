/// The station names read recently, so a name that repeats is one shared `String` instead of one
/// heap copy per station: names repeat (a snapshot of a million generated stations has 5,634
/// distinct names; real feeds repeat towns and airports), and a name over 15 bytes is a heap
/// allocation of 48-100 bytes each, the largest part of a snapshot's memory after the records.
///
/// A direct-mapped cache of a fixed number of entries: a name goes to the slot its hash picks,
/// replacing whatever was there. Its memory is fixed whatever the feed (a feed of distinct names
/// just misses, at the cost of a hash and a compare), and no input can make it grow or probe long.
/// A hit is confirmed by comparing the bytes, so the `String` returned always holds exactly `bytes`.
struct NameCache {
    private static let slotCount = 1 << 14
    private var slots = [String?](repeating: nil, count: NameCache.slotCount)

    /// A `String` of `bytes` (valid UTF-8): the cached one when it holds the same bytes.
    mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        // Small strings (up to 15 bytes) live inside the `String` itself: nothing to share.
        guard bytes.count > 15 else { return String(decoding: bytes, as: UTF8.self) }
        let slot = Int(truncatingIfNeeded: Self.hash(bytes)) & (Self.slotCount - 1)
        if let cached = slots[slot], IDBytes.equal(cached, bytes) { return cached }
        let name = String(decoding: bytes, as: UTF8.self)
        slots[slot] = name
        return name
    }

    /// A hash of the bytes eight at a time (the slot only: collisions cost a miss, never a wrong name).
    @inline(__always) static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var index = 0
        while index + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 29
            index += 8
        }
        var tail: UInt64 = 0
        while index < bytes.count {
            tail = tail << 8 | UInt64(bytes[index])
            index += 1
        }
        hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 32)
    }
}
