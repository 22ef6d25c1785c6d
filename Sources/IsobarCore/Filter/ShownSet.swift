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

    /// Sorts by key (keys are unique, so any order-correct sort gives the same result), in place
    /// and without allocating: insertion sort for the usual few dozen entries, a quicksort
    /// (median of three, insertion sort below 24) above that. The standard library's stable sort
    /// allocates a merge buffer and calls its comparison through a closure: it was 8% of a small
    /// pan's cost at a few dozen entries, and still 5% of the filter's at a few hundred
    /// (a zoomed-out view), which this sort roughly halves. A pathological order that takes the
    /// quicksort too deep falls back to the standard sort.
    static func sortByKey(_ entries: inout [Entry]) {
        let sorted = entries.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard buffer.count > 1 else { return true }
            return quicksort(buffer, 0, buffer.count - 1, depth: 2 * (Int.bitWidth - buffer.count.leadingZeroBitCount))
        }
        if !sorted { entries.sort { $0.key < $1.key } }
    }

    /// Insertion sort of `buffer[low...high]`.
    @inline(__always)
    private static func insertionSort(_ buffer: UnsafeMutableBufferPointer<Entry>, _ low: Int, _ high: Int) {
        guard high > low else { return }
        for i in (low + 1)...high {
            let entry = buffer[i]
            var j = i
            while j > low && buffer[j - 1].key > entry.key {
                buffer[j] = buffer[j - 1]
                j -= 1
            }
            buffer[j] = entry
        }
    }

    /// Sorts `buffer[low...high]`; false when `depth` ran out (the range is then left permuted, unsorted).
    private static func quicksort(_ buffer: UnsafeMutableBufferPointer<Entry>, _ low: Int, _ high: Int, depth: Int) -> Bool {
        var low = low, high = high
        while high - low >= 24 {
            guard depth > 0 else { return false }
            // Median of three to buffer[low], the pivot.
            let middle = low + (high - low) / 2
            if buffer[middle].key < buffer[low].key { buffer.swapAt(middle, low) }
            if buffer[high].key < buffer[low].key { buffer.swapAt(high, low) }
            if buffer[high].key < buffer[middle].key { buffer.swapAt(high, middle) }
            buffer.swapAt(low, middle)
            let pivot = buffer[low].key
            var i = low + 1, j = high
            while true {
                while buffer[i].key < pivot { i += 1 }
                while buffer[j].key > pivot { j -= 1 }
                if i >= j { break }
                buffer.swapAt(i, j)
                i += 1
                j -= 1
            }
            buffer.swapAt(low, j)
            // Recurse into the smaller side, loop on the larger: stack depth O(log n).
            if j - low < high - j {
                if !quicksort(buffer, low, j - 1, depth: depth - 1) { return false }
                low = j + 1
            } else {
                if !quicksort(buffer, j + 1, high, depth: depth - 1) { return false }
                high = j - 1
            }
        }
        insertionSort(buffer, low, high)
        return true
    }
}
