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
            let removed = set.replace(with: &entries, full: full, changed: &changed)

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
}
