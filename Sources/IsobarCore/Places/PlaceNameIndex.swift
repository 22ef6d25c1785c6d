/// The names `geocode` searches: every folded name and alternate name of every place (duplicates
/// within a place dropped), packed in one byte array, and a sorted table of the positions where
/// each of their words starts, so a prefix or word-prefix query is two binary searches and a walk
/// over the hits instead of a scan of every name.
///
/// Memory: the folded keys are one `[UInt8]` (no `String` per name) with a start offset and a
/// place index per key; each word start is an entry of 16 bytes (its first 8 bytes as a big-endian
/// `UInt64`, which orders entries as the bytes do, its position, its key). Entries are sorted by
/// those 8 bytes only: a query's first 8 bytes select a contiguous range and the rest is checked
/// on the key bytes themselves.
struct PlaceNameIndex: Sendable {
    private(set) var keyBytes: [UInt8] = []
    /// keyStart[k]..<keyStart[k+1]: key k's bytes.
    private(set) var keyStart: [UInt32] = [0]
    /// The place (row index) of key k.
    private(set) var keyPlace: [UInt32] = []
    private(set) var entryPrefix: [UInt64] = []
    private(set) var entryPosition: [UInt32] = []
    private(set) var entryKey: [UInt32] = []

    var keyCount: Int { keyPlace.count }

    /// Adds the folded keys of place `place`; each must be non-empty (empty ones are ignored).
    mutating func add(keys: [[UInt8]], place: UInt32) {
        for key in keys where !key.isEmpty {
            keyBytes.append(contentsOf: key)
            keyStart.append(UInt32(keyBytes.count))
            keyPlace.append(place)
        }
    }

    /// Builds the sorted word-start table once every key is in.
    mutating func finish() {
        var prefixes: [UInt64] = [], positions: [UInt32] = [], keys: [UInt32] = []
        prefixes.reserveCapacity(keyCount * 2)
        positions.reserveCapacity(keyCount * 2)
        keys.reserveCapacity(keyCount * 2)
        keyBytes.withUnsafeBufferPointer { bytes in
            keyStart.withUnsafeBufferPointer { starts in
                for k in 0..<keyCount {
                    let start = Int(starts[k]), end = Int(starts[k + 1])
                    var wordStart = true
                    for i in start..<end {
                        if wordStart {
                            prefixes.append(Self.prefix(bytes, i, end))
                            positions.append(UInt32(i))
                            keys.append(UInt32(k))
                        }
                        wordStart = bytes[i] == 0x20
                    }
                }
            }
        }
        Self.radixSort(&prefixes, &positions, &keys)
        entryPrefix = prefixes
        entryPosition = positions
        entryKey = keys
    }

    /// Sorts the three parallel arrays by `prefixes`, stably: a least-significant-digit radix sort
    /// on 16-bit digits (four passes of count and scatter, a pass skipped when every entry has
    /// the same digit). O(n), and fast in a debug build too, where a comparison sort's closure
    /// calls are not.
    static func radixSort(_ prefixes: inout [UInt64], _ positions: inout [UInt32], _ keys: inout [UInt32]) {
        let n = prefixes.count
        guard n > 1 else { return }
        var prefixes2 = [UInt64](repeating: 0, count: n)
        var positions2 = [UInt32](repeating: 0, count: n)
        var keys2 = [UInt32](repeating: 0, count: n)
        var counts = [Int](repeating: 0, count: 1 << 16)
        for pass in 0..<4 {
            let shift = UInt64(pass * 16)
            counts.withUnsafeMutableBufferPointer { counts in
                for d in 0..<counts.count { counts[d] = 0 }
                prefixes.withUnsafeBufferPointer { p in
                    for i in 0..<n { counts[Int((p[i] >> shift) & 0xFFFF)] += 1 }
                }
            }
            if counts.contains(n) { continue }
            counts.withUnsafeMutableBufferPointer { counts in
                var sum = 0
                for d in 0..<counts.count {
                    let c = counts[d]
                    counts[d] = sum
                    sum += c
                }
                prefixes.withUnsafeBufferPointer { p in
                    positions.withUnsafeBufferPointer { q in
                        keys.withUnsafeBufferPointer { k in
                            prefixes2.withUnsafeMutableBufferPointer { p2 in
                                positions2.withUnsafeMutableBufferPointer { q2 in
                                    keys2.withUnsafeMutableBufferPointer { k2 in
                                        for i in 0..<n {
                                            let d = Int((p[i] >> shift) & 0xFFFF)
                                            let at = counts[d]
                                            counts[d] = at + 1
                                            p2[at] = p[i]
                                            q2[at] = q[i]
                                            k2[at] = k[i]
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            swap(&prefixes, &prefixes2)
            swap(&positions, &positions2)
            swap(&keys, &keys2)
        }
    }

    /// The first 8 bytes from `i` (before `end`) as a big-endian number, zero-padded: folded keys
    /// hold no zero byte, so a shorter key sorts before every longer one it starts.
    @inline(__always)
    static func prefix(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> UInt64 {
        var value: UInt64 = 0
        for j in 0..<8 {
            value <<= 8
            if i + j < end { value |= UInt64(bytes[i + j]) }
        }
        return value
    }

    /// Calls `body(place, match)` for every key matching the folded `query` (a place may be
    /// reported more than once, with different kinds).
    func forEachMatch(of query: [UInt8], _ body: (UInt32, PlaceMatch) -> Void) {
        guard !query.isEmpty, !entryPrefix.isEmpty else { return }
        var low: UInt64 = 0, high: UInt64 = 0
        for j in 0..<8 {
            low <<= 8; high <<= 8
            if j < query.count {
                low |= UInt64(query[j]); high |= UInt64(query[j])
            } else {
                high |= 0xFF
            }
        }
        let first = lowerBound(low)
        let last = upperBound(high)
        guard first < last else { return }
        keyBytes.withUnsafeBufferPointer { bytes in
            query.withUnsafeBufferPointer { q in
                for e in first..<last {
                    let position = Int(entryPosition[e]), key = Int(entryKey[e])
                    let keyEnd = Int(keyStart[key + 1])
                    guard keyEnd - position >= q.count else { continue }
                    if q.count > 8 {
                        var same = true
                        for j in 8..<q.count where bytes[position + j] != q[j] { same = false; break }
                        guard same else { continue }
                    }
                    let match: PlaceMatch = position != Int(keyStart[key]) ? .word
                        : (keyEnd - position == q.count ? .exact : .prefix)
                    body(keyPlace[key], match)
                }
            }
        }
    }

    private func lowerBound(_ value: UInt64) -> Int {
        var low = 0, high = entryPrefix.count
        while low < high {
            let mid = (low + high) / 2
            if entryPrefix[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func upperBound(_ value: UInt64) -> Int {
        var low = 0, high = entryPrefix.count
        while low < high {
            let mid = (low + high) / 2
            if entryPrefix[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
