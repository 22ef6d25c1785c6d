#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys seen so far in the objects being scanned, to reject a duplicate key at any depth.
///
/// Keys are kept as byte ranges on a stack shared by every object of one document (an inner object
/// pushes its keys above its parent's and pops them when it closes), so checking a document costs
/// one small array for the whole line, not one per object. Objects of up to `linearLimit` keys (all
/// of the pipeline's messages) compare ranges directly; a bigger one switches to a hash set of its
/// decoded keys, so a hostile line of 100,000 keys costs O(n), not O(n²).
struct JSONKeySet {
    struct Key {
        var range: Range<Int>
        var escaped: Bool
        /// The length and first bytes of an unescaped key: two keys with different tags differ, so
        /// most comparisons are one integer compare (0 for escaped keys: always compared in full).
        var tag: UInt64

        @inline(__always) init(range: Range<Int>, escaped: Bool, in bytes: UnsafeRawBufferPointer) {
            self.range = range
            self.escaped = escaped
            if escaped {
                tag = 0
            } else {
                var prefix: UInt64 = 0
                let count = min(7, range.count)
                if count > 0 && range.lowerBound + 8 <= bytes.count {
                    // The same bytes in one load (little-endian: the first byte lowest), masked.
                    prefix = bytes.loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self) & (UInt64.max >> (64 - 8 * count))
                } else {
                    for k in 0..<count { prefix |= UInt64(bytes[range.lowerBound + k]) << (8 * UInt64(k)) }
                }
                tag = UInt64(truncatingIfNeeded: range.count) << 56 | prefix
            }
        }
    }

    static let linearLimit = 32

    private var stack: [Key] = []
    /// Per open object with more than `linearLimit` keys: its decoded keys (innermost last).
    /// (Keys are compared as UTF-8 bytes, never as `String`s: `String` equality is canonical
    /// equivalence, which would call an NFC and an NFD spelling of one name the same key.)
    private var large: [(base: Int, keys: Set<[UInt8]>)] = []

    /// Where the next object's keys begin; pass it to `insert` and `close`.
    var open: Int { stack.count }

    /// Records a key of the object whose keys begin at `base`; returns the key's text when the
    /// object already has it.
    mutating func insert(_ key: Key, base: Int, bytes: UnsafeRawBufferPointer) -> String? {
        // (Read the base through the subscript: `large.last` would copy the tuple, retaining and
        // releasing its set on every key of every object.)
        if !large.isEmpty && large[large.count - 1].base == base {
            let text = JSONDecoding.unescape(bytes, key.range)
            if large[large.count - 1].keys.insert(Array(text.utf8)).inserted { return nil }
            return text
        }
        for k in base..<stack.count {
            let other = stack[k]
            if other.tag != key.tag && !other.escaped && !key.escaped { continue }
            if Self.equal(other, key, bytes) { return JSONDecoding.unescape(bytes, key.range) }
        }
        // Room for a whole message's keys at once, not grown 1, 2, 4, 8, 16 for every document
        // (the onX fetcher scans a million records, each with its own scanner).
        if stack.capacity == 0 { stack.reserveCapacity(16) }
        stack.append(key)
        if stack.count - base > Self.linearLimit {
            let keys = Set(stack[base...].map { Array(JSONDecoding.unescape(bytes, $0.range).utf8) })
            large.append((base, keys))
        }
        return nil
    }

    /// Forgets the keys of the object whose keys begin at `base`.
    mutating func close(base: Int) {
        if !large.isEmpty && large[large.count - 1].base == base { large.removeLast() }
        stack.removeSubrange(base...)
    }

    /// Whether two keys are the same text (escapes resolved when either has any).
    static func equal(_ a: Key, _ b: Key, _ bytes: UnsafeRawBufferPointer) -> Bool {
        if !a.escaped && !b.escaped {
            guard a.range.count == b.range.count, let base = bytes.baseAddress else { return false }
            return memcmp(base + a.range.lowerBound, base + b.range.lowerBound, a.range.count) == 0
        }
        return JSONDecoding.unescape(bytes, a.range).utf8.elementsEqual(JSONDecoding.unescape(bytes, b.range).utf8)
    }
}
