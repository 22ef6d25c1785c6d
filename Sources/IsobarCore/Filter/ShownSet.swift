/// The annotations a client holds after applying every message sent to it: keys (interned station
/// keys and cluster keys) with the fingerprint of the values last sent.
///
/// A pan replaces the set with what the new viewport shows and needs the difference: what is new
/// or changed (upserts) and what left (removals). With both sides in one order that is one merge
/// walk, no hashing and a few small arrays per client, where a dictionary per update cost a hash
/// table build plus a lookup per annotation on both sides.
///
/// Two orders: by snapshot position, when the set is stations only and came from the snapshot the
/// next pan is answered from (the usual pan: the grid query yields positions ascending, so the new
/// set needs no sort and only the removed keys are sorted, for the message's key order); by key
/// otherwise (clusters, positions out of order): the general path, which sorts the whole new set.
/// Sorting every new set was ~11.5 % of the filter's instructions per small-step pan. The first
/// pan from a new snapshot looks each new station up in the set held by key, and keeps the new
/// set by position from then on.
struct ShownSet {
    /// One annotation of the new set: its key, fingerprint, and index in the caller's list.
    struct Entry {
        var key: UInt64
        var fingerprint: UInt64
        var index: Int32
    }

    /// The set: ascending by key, or (``byPosition``) ascending by station position in ``source``,
    /// each entry's `index` then being that position. One array of entries, the caller's own taken
    /// over (``store(_:)``): a pan copies no key or fingerprint.
    private var held: [Entry] = []
    /// The snapshot whose positions the entries hold: nil while the set is by key. Weak, so a
    /// client never keeps a replaced snapshot alive, and a new snapshot at the same address is
    /// never taken for it.
    private weak var source: StationSnapshot?
    /// Whether the set is in position order (``source`` may have gone since: then it is sorted by
    /// key before the next merge).
    private var byPosition = false

    var count: Int { held.count }

    func contains(_ key: UInt64) -> Bool {
        held.withUnsafeBufferPointer { held in
            if byPosition { return held.contains { $0.key == key } }  // a few hundred at most, by position
            let low = Self.lowerBound(of: key, in: held)
            return low < held.count && held[low].key == key
        }
    }

    /// Whether the set is held by position in `snapshot` (the next pan from it is merged by position).
    func holdsPositions(of snapshot: StationSnapshot) -> Bool {
        byPosition && source === snapshot
    }

    /// Makes `entries` the set, as ``replace(with:full:changed:removed:)`` does and with the same results.
    /// `stations`, when every entry is a station: `entries[i]` is the station at `stations[i]` of
    /// `snapshot`. When they are ascending and the set holds positions of the same snapshot, the
    /// two are merged by position and only the removed keys are sorted; the set is then kept by
    /// position for the next pan. `ascending`: the caller knows `stations` is strictly ascending
    /// (the grid query says so, ``VisibleItems/stationsAscending``), so it is not walked to check.
    mutating func replace(with entries: inout [Entry], stations: [Int32]?, ascending: Bool = false, of snapshot: StationSnapshot?,
                          full: Bool, changed: inout [Bool], removed: inout [UInt64]) {
        guard let snapshot, let stations, stations.count == entries.count, ascending || Self.isAscending(stations) else {
            return replace(with: &entries, full: full, changed: &changed, removed: &removed)
        }
        if holdsPositions(of: snapshot) {
            return mergeByPosition(&entries, stations, full: full, changed: &changed, removed: &removed)
        }
        diffAgainstKeys(&entries, stations, full: full, changed: &changed, removed: &removed)
        source = snapshot
        byPosition = true
    }

    /// Makes `entries` (any order, unique keys) the set. Sets `changed[entry.index]` for each entry
    /// that is new or whose fingerprint differs (every entry when `full`), and appends the keys that
    /// left to `removed` (the caller's, empty), ascending (none when `full`: a full message
    /// replaces the client's whole set). The general path: sorts `entries` by key, and leaves the
    /// set by key. (`removed` and `entries` are the caller's arrays, kept between answers: no
    /// allocation per pan.)
    ///
    /// `entries` is taken over (see ``store(_:)``): the caller gets back an empty array to reuse.
    mutating func replace(with entries: inout [Entry], full: Bool, changed: inout [Bool], removed: inout [UInt64]) {
        sortHeldByKey()
        Self.sortByKey(&entries)
        var old = 0
        for entry in entries {
            while old < held.count && held[old].key < entry.key {
                if !full { removed.append(held[old].key) }
                old += 1
            }
            if old < held.count && held[old].key == entry.key {
                if full || held[old].fingerprint != entry.fingerprint { changed[Int(entry.index)] = true }
                old += 1
            } else {
                changed[Int(entry.index)] = true
            }
        }
        if !full {
            while old < held.count {
                removed.append(held[old].key)
                old += 1
            }
        }
        store(&entries)
        forgetPositions()
    }

    /// The merge of the held positions with the new, both ascending: what ``replace(with:full:changed:removed:)``
    /// gives (a station's key is fixed by its position in one snapshot), with only the removals
    /// sorted. Each new entry's `index` becomes its position as it is passed.
    private mutating func mergeByPosition(_ entries: inout [Entry], _ stations: [Int32], full: Bool, changed: inout [Bool],
                                          removed: inout [UInt64]) {
        held.withUnsafeBufferPointer { held in
            stations.withUnsafeBufferPointer { stations in
                entries.withUnsafeMutableBufferPointer { entries in
                    changed.withUnsafeMutableBufferPointer { changed in
                        var old = 0
                        for n in 0..<entries.count {
                            let position = stations[n]
                            while old < held.count && held[old].index < position {
                                if !full { removed.append(held[old].key) }
                                old += 1
                            }
                            if old < held.count && held[old].index == position {
                                if full || held[old].fingerprint != entries[n].fingerprint { changed[Int(entries[n].index)] = true }
                                old += 1
                            } else {
                                changed[Int(entries[n].index)] = true
                            }
                            entries[n].index = position
                        }
                        if !full {
                            while old < held.count {
                                removed.append(held[old].key)
                                old += 1
                            }
                        }
                    }
                }
            }
        }
        Self.sortByKey(&removed)
        store(&entries)  // still by position, from the same source
    }

    /// The first pan from a snapshot (the set held is by key, or by position in another snapshot):
    /// each new entry looked up by key in the held set, which is marked as it is found, so the
    /// unmarked rest are the removals, already ascending. The new set is stored in the position
    /// order it came in (each entry's `index` becoming its position), with no sort of it.
    private mutating func diffAgainstKeys(_ entries: inout [Entry], _ stations: [Int32], full: Bool, changed: inout [Bool],
                                          removed: inout [UInt64]) {
        sortHeldByKey()
        held.withUnsafeMutableBufferPointer { held in
            let sorted = UnsafeBufferPointer(held)
            for n in entries.indices {
                let entry = entries[n]
                let old = Self.lowerBound(of: entry.key, in: sorted)
                if old < held.count && held[old].key == entry.key {
                    if full || held[old].fingerprint != entry.fingerprint { changed[Int(entry.index)] = true }
                    held[old].index = -1  // found (every index held is a position or a place, never negative)
                } else {
                    changed[Int(entry.index)] = true
                }
                entries[n].index = stations[n]
            }
            if !full {
                for entry in held where entry.index >= 0 { removed.append(entry.key) }
            }
        }
        store(&entries)
    }

    /// Takes `entries` over as the set: the two arrays are swapped, no entry copied, and `entries`
    /// is left with the old set's storage, emptied, for the caller to reuse. The set's array is
    /// copied down to size only when a zoom back in left it far larger than needed (1,000 clients
    /// that once saw 500 annotations would otherwise keep 12 MB between them).
    private mutating func store(_ entries: inout [Entry]) {
        swap(&held, &entries)
        entries.removeAll(keepingCapacity: true)
        if held.capacity > 4 * held.count + 64 {
            var fitted: [Entry] = []
            fitted.reserveCapacity(held.count)
            fitted.append(contentsOf: held)
            held = fitted
        }
    }

    /// Puts a set held by position in key order (the general path's), forgetting the positions.
    private mutating func sortHeldByKey() {
        guard byPosition else { return }
        Self.sortByKey(&held)
        forgetPositions()
    }

    /// Marks the set as by key.
    private mutating func forgetPositions() {
        byPosition = false
        source = nil
    }

    /// The first place in `entries` (ascending by key) whose key is not below `key`.
    private static func lowerBound(of key: UInt64, in entries: UnsafeBufferPointer<Entry>) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether `positions` is strictly ascending (checked when the caller cannot say).
    private static func isAscending(_ positions: [Int32]) -> Bool {
        positions.withUnsafeBufferPointer { positions in
            guard positions.count > 1 else { return true }
            for i in 1..<positions.count where positions[i - 1] >= positions[i] { return false }
            return true
        }
    }

    /// Sorts by key (keys are unique, so any order-correct sort gives the same result), in place
    /// and without allocating: insertion sort for the usual few dozen entries, a quicksort
    /// (median of three, insertion sort below 24) above that. The standard library's stable sort
    /// allocates a merge buffer and calls its comparison through a closure: it was 8% of a small
    /// pan's cost at a few dozen entries, and still 5% of the filter's at a few hundred
    /// (a zoomed-out view), which this sort roughly halves. A pathological order that takes the
    /// quicksort too deep falls back to the standard sort.
    ///
    /// Generic over what is sorted (entries, or bare keys: the removals of a merge by position),
    /// specialised by the compiler for each.
    static func sortByKey<Element: SortKeyed>(_ entries: inout [Element]) {
        let sorted = entries.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard buffer.count > 1 else { return true }
            return quicksort(buffer, 0, buffer.count - 1, depth: 2 * (Int.bitWidth - buffer.count.leadingZeroBitCount))
        }
        if !sorted { entries.sort { $0.sortKey < $1.sortKey } }
    }

    /// Insertion sort of `buffer[low...high]`.
    @inline(__always)
    private static func insertionSort<Element: SortKeyed>(_ buffer: UnsafeMutableBufferPointer<Element>, _ low: Int, _ high: Int) {
        guard high > low else { return }
        for i in (low + 1)...high {
            let entry = buffer[i]
            var j = i
            while j > low && buffer[j - 1].sortKey > entry.sortKey {
                buffer[j] = buffer[j - 1]
                j -= 1
            }
            buffer[j] = entry
        }
    }

    /// Sorts `buffer[low...high]`; false when `depth` ran out (the range is then left permuted, unsorted).
    private static func quicksort<Element: SortKeyed>(_ buffer: UnsafeMutableBufferPointer<Element>, _ low: Int, _ high: Int, depth: Int) -> Bool {
        var low = low, high = high
        while high - low >= 24 {
            guard depth > 0 else { return false }
            // Median of three to buffer[low], the pivot.
            let middle = low + (high - low) / 2
            if buffer[middle].sortKey < buffer[low].sortKey { buffer.swapAt(middle, low) }
            if buffer[high].sortKey < buffer[low].sortKey { buffer.swapAt(high, low) }
            if buffer[high].sortKey < buffer[middle].sortKey { buffer.swapAt(high, middle) }
            buffer.swapAt(low, middle)
            let pivot = buffer[low].sortKey
            var i = low + 1, j = high
            while true {
                while buffer[i].sortKey < pivot { i += 1 }
                while buffer[j].sortKey > pivot { j -= 1 }
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

/// What ``ShownSet/sortByKey(_:)`` orders by.
protocol SortKeyed {
    var sortKey: UInt64 { get }
}

extension ShownSet.Entry: SortKeyed {
    var sortKey: UInt64 { key }
}

extension UInt64: SortKeyed {
    var sortKey: UInt64 { self }
}
