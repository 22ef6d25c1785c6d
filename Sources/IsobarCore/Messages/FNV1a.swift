/// 64-bit FNV-1a: a fast, stable (process-independent) hash for snapshot ids and change detection.
/// Swift's `Hasher` is seeded per process, so it cannot name a snapshot across processes.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    @inline(__always) public mutating func add(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    public mutating func add(_ text: String) {
        // The bytes read in place, as `tableHash` does: the same hash as adding each element of
        // `utf8`, which cost a snapshot id of a million stations ~4 % of a fetch.
        var hash = value
        var text = text
        text.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        value = hash
        add(byte: 0xFF)  // separator: ("ab","c") and ("a","bc") differ
    }

    public mutating func add(_ number: Double?) {
        guard let number else { add(byte: 0xFE); return }
        var bits = (number + 0.0).bitPattern
        for _ in 0..<8 { add(byte: UInt8(truncatingIfNeeded: bits)); bits >>= 8 }
    }

    public mutating func add(_ number: UInt64) {
        var bits = number
        for _ in 0..<8 { add(byte: UInt8(truncatingIfNeeded: bits)); bits >>= 8 }
    }

    /// The hash as 16 lowercase hex digits.
    public var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// A hash-table position hash of `text`'s UTF-8 bytes: FNV-1a started from `seed` (a
    /// per-table random seed, so ids crafted to collide in one process do not in another), read in
    /// place (a small string's from a stack copy: iterating `utf8` one element at a time was most
    /// of an insert's cost), with the high half folded in, since FNV-1a's low bits mix poorly for
    /// ids that differ only in their last characters. Used by ``KeyInterner``, the fetcher's id
    /// set and the client's `AnnotationTable`, each confirming a match with `IDBytes` (ids are bytes).
    @inline(__always) public static func tableHash(_ text: String, seed: UInt64) -> UInt64 {
        // Read where the string is (no copy to make it mutable for `withUTF8`, which retained
        // every shared name a snapshot's name index hashed); `withUTF8` only for a bridged string.
        if let hash = text.utf8.withContiguousStorageIfAvailable({ tableHash(bytes: UnsafeRawBufferPointer($0), seed: seed) }) {
            return hash
        }
        var text = text
        return text.withUTF8 { tableHash(bytes: UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// ``tableHash(_:seed:)`` of UTF-8 bytes as they are (an id read in place from a message).
    @inline(__always) public static func tableHash(bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed ^ 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash ^ (hash >> 29)
    }
}
