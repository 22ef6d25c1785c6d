#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The search index of one snapshot: every distinct station name folded once (``NameFolding``)
/// into one byte array, in ranking order, plus the stations of each name sorted by id, and an
/// ``IDTable`` for ids.
///
/// Memory is 12 bytes a station plus the folded text of the *distinct* names (names repeat: a
/// million generated stations have 5,634 of them), so a search scans the distinct names once with
/// `memmem` and never touches the stations of names that do not match. Built with the snapshot,
/// so every search of that snapshot sees the same immutable index.
public struct NameIndex: Sendable {
    /// `0, folded name, 0, folded name, …` over the distinct names in ranking order (folded name,
    /// then the name's UTF-8 bytes); the 0 before each name marks its start for prefix matches.
    private let text: [UInt8]
    /// Offset in `text` of the 0 before each distinct name (one more entry: `text.count`).
    private let nameOffsets: [Int32]
    /// `members[groupStarts[g]..<groupStarts[g + 1]]` are the positions of the stations named by
    /// distinct name `g` (in ranking order), sorted by id (UTF-8 bytes).
    private let groupStarts: [Int32]
    private let members: [Int32]
    private let ids: IDTable

    public var distinctNames: Int { nameOffsets.count - 1 }

    /// With `idsFoundElsewhere`, ids without a lowercase letter are left to the caller's exact
    /// lookup (`search(_:limit:in:exactID:)`), which saves 8 bytes a station (see ``IDTable``).
    public init(stations: [Station], idsFoundElsewhere: Bool = false) {
        // Each name is hashed once, into a group number per station (4 bytes a station while the
        // index is built; hashing every name three times was a tenth of a snapshot load). The
        // lookups go through a `KeyInterner` (FNV-1a, open addressing): a `[String: Int32]` spent
        // a third of a million-station snapshot's load time in SipHash and bucket probes.
        let groupOf = KeyInterner()
        // By index: iterating the array would copy each whole `Station`.
        let groupOfStation = stations.withUnsafeBufferPointer { records in
            records.indices.map { Int32(truncatingIfNeeded: groupOf.key(for: records[$0].name)) }
        }
        let names = (0..<groupOf.count).map { groupOf.id(for: UInt64($0)) ?? "" }
        let folded = names.map(NameFolding.fold)
        let ranked = names.indices.sorted { a, b in
            if folded[a] != folded[b] { return folded[a].lexicographicallyPrecedes(folded[b]) }
            return names[a].utf8.lexicographicallyPrecedes(names[b].utf8)
        }
        var rankOf = [Int32](repeating: 0, count: names.count)
        var text: [UInt8] = []
        text.reserveCapacity(folded.reduce(0) { $0 + $1.count + 1 })
        var offsets: [Int32] = []
        offsets.reserveCapacity(names.count + 1)
        for (rank, g) in ranked.enumerated() {
            rankOf[g] = Int32(rank)
            offsets.append(Int32(text.count))
            text.append(0)
            text.append(contentsOf: folded[g])
        }
        offsets.append(Int32(text.count))
        // Counting sort of the stations by their name's rank, then by id within a name.
        var starts = [Int32](repeating: 0, count: names.count + 1)
        for group in groupOfStation { starts[Int(rankOf[Int(group)]) + 1] += 1 }
        for r in 0..<names.count { starts[r + 1] += starts[r] }
        var next = starts
        var members = [Int32](repeating: 0, count: stations.count)
        for position in stations.indices {
            let r = Int(rankOf[Int(groupOfStation[position])])
            members[Int(next[r])] = Int32(position)
            next[r] += 1
        }
        // Within a name, by id bytes: each member carries its id's first 8 bytes as one big-endian
        // integer (zero-padded), so nearly every comparison is one integer compare; only equal
        // prefixes compare the whole ids. (Comparing the ids' UTF-8 views element by element was
        // a sixth of a million-station snapshot's build.) The same order as comparing the bytes:
        // a padded zero ties with a real zero byte and falls through to the full comparison.
        var group: [(prefix: UInt64, member: Int32)] = []
        for r in 0..<names.count where starts[r + 1] - starts[r] > 1 {
            let range = Int(starts[r])..<Int(starts[r + 1])
            group.removeAll(keepingCapacity: true)
            for k in range { group.append((Self.idPrefix(stations[Int(members[k])].id), members[k])) }
            group.sort { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                return stations[Int(a.member)].id.utf8.lexicographicallyPrecedes(stations[Int(b.member)].id.utf8)
            }
            for (offset, entry) in group.enumerated() { members[range.lowerBound + offset] = entry.member }
        }
        self.text = text
        nameOffsets = offsets
        groupStarts = starts
        self.members = members
        ids = IDTable(stations: stations, onlyMixedCase: idsFoundElsewhere)
    }

    /// The first 8 bytes of `id`'s UTF-8 as a big-endian integer, zero-padded (a sort key whose
    /// order is the bytes' order wherever two keys differ).
    static func idPrefix(_ id: String) -> UInt64 {
        var prefix: UInt64 = 0
        var taken = 0
        for byte in id.utf8 {
            guard taken < 8 else { break }
            prefix = prefix << 8 | UInt64(byte)
            taken += 1
        }
        return taken == 0 ? 0 : prefix << (8 * UInt64(8 - taken))
    }

    /// One search result: a station's position in the snapshot and why it matched.
    public struct Hit: Sendable, Equatable {
        public var position: Int32
        public var match: NameMatch
    }

    /// The best `limit` stations for `query`: exact ids (ASCII case ignored) first, then names
    /// starting with the folded query, then names with a word starting with it, then names
    /// containing it; within each, by name (folded, then as given), then by id. `stations` must
    /// be the array the index was built from.
    public func search(_ query: String, limit: Int, in stations: [Station], exactID: ((String) -> Int?)? = nil) -> [Hit] {
        guard limit > 0 else { return [] }
        var hits: [Hit] = []
        let idQuery = String(decoding: Array(query.utf8).trimmingSpaces, as: UTF8.self)
        let idHits = idQuery.isEmpty ? [] : ids.positions(of: idQuery, in: stations, exact: exactID)
        for position in idHits.prefix(limit) { hits.append(Hit(position: position, match: .id)) }
        let needle = NameFolding.fold(query)
        guard !needle.isEmpty, hits.count < limit else { return hits }
        // Matching distinct names, by class; each list is in ranking order already.
        var byClass: [[Int32]] = [[], [], []]
        text.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                guard haystack.baseAddress != nil, pattern.count > 0 else { return }
                var from = 0
                while from < haystack.count {
                    guard let found = Self.find(pattern, in: haystack, from: from, to: haystack.count) else { break }
                    let at = found
                    let name = nameIndex(containing: at)
                    let end = Int(nameOffsets[name + 1])
                    let before = haystack[at - 1]
                    var best = before == 0 ? 0 : (before == 0x20 ? 1 : 2)
                    // A better match may come later in the same name ("ana" in "banana ana").
                    var next = at + 1
                    while best > 0, next < end,
                          let at2 = Self.find(pattern, in: haystack, from: next, to: end) {
                        if haystack[at2 - 1] == 0x20 { best = 1 }
                        next = at2 + 1
                    }
                    byClass[best].append(Int32(name))
                    from = end
                }
            }
        }
        let exact = Set(idHits)
        let classes: [NameMatch] = [.prefix, .word, .substring]
        for (c, names) in byClass.enumerated() {
            for name in names {
                for k in Int(groupStarts[Int(name)])..<Int(groupStarts[Int(name) + 1]) {
                    let position = members[k]
                    if exact.contains(position) { continue }
                    hits.append(Hit(position: position, match: classes[c]))
                    if hits.count == limit { return hits }
                }
            }
        }
        return hits
    }

    /// The offset of the first occurrence of `pattern` in `haystack[from..<to]`: `memchr` for its
    /// first byte, `memcmp` for the rest (glibc's `memmem` is not exported to Swift).
    @inline(__always)
    static func find(_ pattern: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard let base = haystack.baseAddress, let needle = pattern.baseAddress else { return nil }
        let first = Int32(pattern[0])
        var at = from
        while to - at >= pattern.count {
            guard let hit = memchr(base + at, first, to - at - pattern.count + 1) else { return nil }
            let offset = base.distance(to: UnsafeRawPointer(hit))
            if pattern.count == 1 || memcmp(base + offset + 1, needle + 1, pattern.count - 1) == 0 { return offset }
            at = offset + 1
        }
        return nil
    }

    /// The distinct name whose text holds byte offset `offset` (never a separator).
    private func nameIndex(containing offset: Int) -> Int {
        var low = 0, high = nameOffsets.count - 1  // nameOffsets[low] <= offset < nameOffsets[high]
        while high - low > 1 {
            let mid = (low + high) / 2
            if Int(nameOffsets[mid]) <= offset { low = mid } else { high = mid }
        }
        return low
    }
}

extension Array where Element == UInt8 {
    /// The bytes without leading and trailing ASCII whitespace.
    var trimmingSpaces: ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return [] }
        return self[first...last]
    }
}
