import Testing
@testable import IsobarCore

@Suite struct ShownSetTests {
    /// Random successive sets against a dictionary: changed flags, removals (ascending) and `contains`.
    @Test func replaceMatchesADictionaryDiff() {
        var rng = TestSupport.Random(seed: 11)
        var set = ShownSet()
        var reference: [UInt64: UInt64] = [:]
        for round in 0..<500 {
            let full = round % 17 == 0
            var next: [UInt64: UInt64] = [:]
            for _ in 0..<Int(rng.next() % 150) { next[rng.next() % 200] = rng.next() % 3 }  // both sort paths (<= 64 and more)
            let pairs = Array(next)
            var entries = pairs.enumerated().map { ShownSet.Entry(key: $1.key, fingerprint: $1.value, index: Int32($0)) }
            var changed = [Bool](repeating: false, count: pairs.count)
            var removed: [UInt64] = []
            set.replace(with: &entries, full: full, changed: &changed, removed: &removed)

            let expectedChanged = pairs.map { full || reference[$0.key] != $0.value }
            let expectedRemoved = full ? [] : reference.keys.filter { next[$0] == nil }.sorted()
            #expect(changed == expectedChanged, "round \(round)")
            #expect(removed == expectedRemoved, "round \(round)")
            reference = next
            #expect(set.count == reference.count)
            for key in 0..<UInt64(200) { #expect(set.contains(key) == (reference[key] != nil)) }
        }
    }

    /// The in-place sort on orders a quicksort can trip on (sorted, reversed, organ pipe, runs,
    /// random) and sizes around its cut-offs: ascending keys, each entry kept whole.
    @Test func sortByKeyOrdersEveryShape() {
        var rng = TestSupport.Random(seed: 3)
        for count in [0, 1, 2, 23, 24, 25, 64, 65, 200, 5_000] {
            let shapes: [[UInt64]] = [
                (0..<count).map { UInt64($0) },
                (0..<count).map { UInt64(count - $0) },
                (0..<count).map { UInt64($0 < count / 2 ? 2 * $0 : 2 * (count - $0) + 1) },
                (0..<count).map { UInt64(($0 % 50) * 1_000 + $0 / 50) },
                (0..<count).map { _ in rng.next() },
            ]
            for keys in shapes where Set(keys).count == keys.count {
                var entries = keys.enumerated().map { ShownSet.Entry(key: $1, fingerprint: $1 &* 31, index: Int32($0)) }
                ShownSet.sortByKey(&entries)
                #expect(entries.map(\.key) == keys.sorted(), "count \(count)")
                #expect(entries.allSatisfy { $0.fingerprint == $0.key &* 31 && keys[Int($0.index)] == $0.key })
            }
        }
    }

    /// The diff by snapshot position against the general path (sort the whole new set, merge by
    /// key), one random sequence of sets fed to both: pans inside one snapshot, a new snapshot (the
    /// same positions then mean other stations), a snapshot rebuilt (the old one freed), sets with
    /// clusters, positions out of order, empty sets, every station removed, full answers; the order
    /// of ascending positions now said by the caller (as the grid query says it), now checked.
    /// Changed flags, removals (ascending by key) and contents must be exactly the general path's,
    /// both for the merge by position and for the first pan from a snapshot (looked up by key).
    @Test func diffByPositionMatchesTheGeneralPath() {
        var rng = TestSupport.Random(seed: 29)
        let interner = KeyInterner()
        // Stations on a 20 x 20 degree patch, ids interned in another order per snapshot, so keys
        // and positions disagree and a position means another station in each.
        func snapshot(_ name: String, count: Int, shift: Int) -> StationSnapshot {
            let stations = (0..<count).map { n in
                let i = (n * 7 + shift) % count
                return Station(id: "S\(i)", name: "", coordinate: Coordinate(latitude: Double(i * 37 % 200) / 10, longitude: Double(i * 53 % 200) / 10),
                               temperature: Double(i % 9))
            }
            return StationSnapshot(end: SnapshotEnd(day: .today, snapshot: name, count: count, source: .feed, fetchedAt: 0),
                                   stations: stations, interner: interner)
        }
        var snapshots = [snapshot("a", count: 300, shift: 0), snapshot("b", count: 300, shift: 11), snapshot("c", count: 250, shift: 5)]
        var current = snapshots[0]
        var fast = ShownSet(), general = ShownSet()
        var byPosition = 0, firstPans = 0
        for round in 0..<4_000 {
            switch rng.next() % 100 {
            case 0..<3: current = snapshots[Int(rng.next() % 3)]
            case 3:
                snapshots[2] = snapshot("c\(round)", count: 250, shift: Int(rng.next() % 250))  // the old "c" is freed
                current = snapshots[2]
            default: break
            }
            let count = current.stations.count
            var stations: [Int32]
            switch rng.next() % 10 {
            case 0: stations = []
            case 1: stations = (0..<Int32(count)).map { $0 }
            default:  // a window with holes, as a pan's grid query gives
                let start = Int(rng.next() % UInt64(count)), length = Int(rng.next() % 80)
                stations = (start..<min(count, start + length)).filter { _ in rng.next() % 4 != 0 }.map { Int32($0) }
            }
            let shuffled = rng.next() % 15 == 0
            if shuffled {  // out of order: the general path
                for i in stations.indices.reversed() { stations.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            }
            let saidAscending = !shuffled && rng.next() % 2 == 0
            let clusters: [UInt64] = rng.next() % 12 == 0 ? (0..<rng.next() % 5).map { (1 << 63) | $0 * 97 } : []
            let full = rng.next() % 23 == 0
            // A station's fingerprint, now and then with the stale salt (a change).
            let fingerprints = stations.map { current.fingerprints[Int($0)] ^ (rng.next() % 6 == 0 ? FilterEngine.staleSalt : 0) }
            func entries() -> [ShownSet.Entry] {
                stations.enumerated().map { ShownSet.Entry(key: current.keys[Int($1)], fingerprint: fingerprints[$0], index: Int32($0)) }
                    + clusters.enumerated().map { ShownSet.Entry(key: $1, fingerprint: $1 &* 3, index: Int32(stations.count + $0)) }
            }
            // Counted when the merge by position is what answers (the fast path, not only the general one).
            if clusters.isEmpty && stations == stations.sorted() {
                if fast.holdsPositions(of: current) { byPosition += 1 } else { firstPans += 1 }
            }
            var fastEntries = entries(), generalEntries = entries()
            var fastChanged = [Bool](repeating: false, count: fastEntries.count), generalChanged = fastChanged
            var fastRemoved: [UInt64] = [], generalRemoved: [UInt64] = []
            fast.replace(with: &fastEntries, stations: clusters.isEmpty ? stations : nil, ascending: saidAscending,
                         of: current, full: full, changed: &fastChanged, removed: &fastRemoved)
            general.replace(with: &generalEntries, full: full, changed: &generalChanged, removed: &generalRemoved)
            #expect(fastChanged == generalChanged, "round \(round)")
            #expect(fastRemoved == generalRemoved, "round \(round)")
            #expect(fast.count == general.count, "round \(round)")
            if round % 50 == 0 {
                for key in 0..<UInt64(interner.count) { #expect(fast.contains(key) == general.contains(key), "round \(round)") }
            }
        }
        #expect(byPosition > 2_000 && firstPans > 200)
    }
}
