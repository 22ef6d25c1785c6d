/// The annotations a client holds after applying every message sent to it: keys (interned station
/// keys and cluster keys) with the fingerprint of the values last sent, sorted by key.
///
/// A pan replaces the set with what the new viewport shows and needs the difference: what is new
/// or changed (upserts) and what left (removals). With both sides sorted that is one merge walk,
/// no hashing and two small arrays per client, where a dictionary per update cost a hash table
/// build plus a lookup per annotation on both sides (the single largest cost of a small pan in
/// the filter's profile).
struct ShownSet {
    /// One annotation of the new set: its key, fingerprint, and index in the caller's list.
    struct Entry {
        var key: UInt64
        var fingerprint: UInt64
        var index: Int32
    }

    private(set) var keys: [UInt64] = []
    private(set) var fingerprints: [UInt64] = []

    var count: Int { keys.count }

    func contains(_ key: UInt64) -> Bool {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key
    }

    /// Makes `entries` (any order, unique keys) the set. Sets `changed[entry.index]` for each entry
    /// that is new or whose fingerprint differs (every entry when `full`), and returns the keys that
    /// left, ascending (none when `full`: a full message replaces the client's whole set).
    mutating func replace(with entries: inout [Entry], full: Bool, changed: inout [Bool]) -> [UInt64] {
        Self.sortByKey(&entries)
        var removed: [UInt64] = []
        var old = 0
        for entry in entries {
            while old < keys.count && keys[old] < entry.key {
                if !full { removed.append(keys[old]) }
                old += 1
            }
            if old < keys.count && keys[old] == entry.key {
                if full || fingerprints[old] != entry.fingerprint { changed[Int(entry.index)] = true }
                old += 1
            } else {
                changed[Int(entry.index)] = true
            }
        }
        if !full {
            while old < keys.count {
                removed.append(keys[old])
                old += 1
            }
        }
        // Reuse the arrays, unless a zoom back in left them far larger than needed (1,000 clients
        // that once saw 500 annotations would otherwise keep 8 MB between them).
        let keep = keys.capacity <= 4 * entries.count + 64
        keys.removeAll(keepingCapacity: keep)
        fingerprints.removeAll(keepingCapacity: keep)
        keys.reserveCapacity(entries.count)
        fingerprints.reserveCapacity(entries.count)
        for entry in entries {
            keys.append(entry.key)
            fingerprints.append(entry.fingerprint)
        }
        return removed
    }

    /// Sorts by key: insertion sort in place for the usual few dozen entries (the standard library's
    /// stable sort allocates a merge buffer and was 8% of a small pan's cost), the standard sort
    /// for more.
    static func sortByKey(_ entries: inout [Entry]) {
        guard entries.count <= 64 else {
            entries.sort { $0.key < $1.key }
            return
        }
        entries.withUnsafeMutableBufferPointer { buffer in
            guard buffer.count > 1 else { return }
            for i in 1..<buffer.count {
                let entry = buffer[i]
                var j = i
                while j > 0 && buffer[j - 1].key > entry.key {
                    buffer[j] = buffer[j - 1]
                    j -= 1
                }
                buffer[j] = entry
            }
        }
    }
}
