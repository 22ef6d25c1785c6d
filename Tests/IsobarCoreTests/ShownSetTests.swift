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
}
