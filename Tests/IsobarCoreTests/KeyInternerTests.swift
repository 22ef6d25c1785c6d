import Testing
@testable import IsobarCore

@Suite struct KeyInternerTests {
    /// Against a dictionary, through many growths: every id gets the next key once, keeps it, is
    /// found again, and an id never interned is not found.
    @Test func keysMatchADictionaryThroughGrowth() {
        let interner = KeyInterner()
        var reference: [String: UInt64] = [:]
        var generator = SystemRandomNumberGenerator()
        var wrong: [String] = []
        for round in 0..<40_000 {
            // Short and long ids, ids differing only in their last character, repeats, non-ASCII.
            let id: String
            switch round % 5 {
            case 0: id = "K\(round / 5)"
            case 1: id = "station-with-a-long-identifier-\(generator.next() % 5_000)"
            case 2: id = "Košice-\(round % 97)"
            case 3: id = String(round, radix: 36)
            default: id = "G\(String(repeating: "0", count: 7))\(generator.next() % 3_000)"
            }
            let expected = reference[id] ?? UInt64(reference.count)
            reference[id] = expected
            if interner.key(for: id) != expected { wrong.append("key(for: \(id))") }
        }
        #expect(interner.count == reference.count)
        for (id, key) in reference {
            if interner.existingKey(for: id) != key || interner.id(for: key) != id { wrong.append("lookup \(id)") }
        }
        #expect(wrong.count == 0, "first: \(wrong.prefix(3))")
        #expect(interner.existingKey(for: "never-interned") == nil)
        #expect(interner.existingKey(for: "") == nil)
        #expect(interner.id(for: UInt64(reference.count)) == nil)
    }

    /// The batch gives exactly the keys of `key(for:)` one at a time: repeats inside one group of
    /// the batch and across groups, ids the interner already held, and growth in the middle (no
    /// `reserve` first, so the table grows many times while the batch runs).
    @Test func batchKeysAreTheOneAtATimeKeys() {
        let small = KeyInterner()
        #expect(small.key(for: "b") == 0)
        #expect(small.keys(for: ["a", "b", "a", "c", "b", "d"]) == [1, 0, 1, 2, 0, 3])
        #expect(small.keys(for: [String]()) == [])
        #expect(small.count == 4)

        let interner = KeyInterner()
        var reference: [[UInt8]: UInt64] = [:]  // by bytes: ids are bytes, not canonical `String`s
        func expected(_ ids: [String]) -> [UInt64] {
            ids.map { id in
                let key = reference[Array(id.utf8)] ?? UInt64(reference.count)
                reference[Array(id.utf8)] = key
                return key
            }
        }
        let first = (0..<37).map { "S\($0 % 11)" }  // repeats within each group of 16
        let second = (0..<50_000).map { $0 % 3 == 0 ? "station-with-a-long-identifier-\($0 % 7_001)" : "K\($0)" }
        let third = (0..<1_000).map { "K\($0 * 7)" } + ["Košice", "Kos\u{030C}ice", "", "S3"]
        for ids in [first, second, third] {
            let want = expected(ids)
            #expect(interner.keys(for: ids) == want)
        }
        #expect(interner.count == reference.count)
        #expect(reference.allSatisfy { bytes, key in
            let id = String(decoding: bytes, as: UTF8.self)
            return interner.existingKey(for: id) == key && interner.id(for: key).map { Array($0.utf8) } == bytes
        })
    }

    @Test func reserveKeepsKeys() {
        let interner = KeyInterner()
        #expect(interner.key(for: "a") == 0)
        #expect(interner.key(for: "b") == 1)
        interner.reserve(100_000)
        #expect(interner.existingKey(for: "a") == 0)
        #expect(interner.existingKey(for: "b") == 1)
        #expect(interner.key(for: "c") == 2)
        #expect(interner.key(for: "a") == 0)
    }

    /// Ids are bytes (PROTOCOL.md): "é" spelled as one code point and as "e" plus a combining
    /// accent are two ids, with two keys, whatever probe chain the random seed puts them in (Swift's
    /// `==` on `String` would merge them whenever they met in one).
    @Test func idsThatDifferOnlyInNormalizationAreTwoIds() {
        #expect(!IDBytes.equal("\u{e9}", "e\u{301}"))
        #expect(IDBytes.equal("K1D3", "K1D3") && !IDBytes.equal("K1D3", "K1D") && IDBytes.equal("", ""))
        let interner = KeyInterner()
        let pairs = (0..<3_000).map { ("s\($0)\u{e9}", "s\($0)e\u{301}") }
        for (composed, decomposed) in pairs {
            _ = interner.key(for: composed)
            _ = interner.key(for: decomposed)
        }
        #expect(interner.count == 6_000)
        let found = pairs.allSatisfy { composed, decomposed in
            interner.existingKey(for: composed).flatMap { interner.id(for: $0) }?.utf8.elementsEqual(composed.utf8) == true
                && interner.existingKey(for: decomposed).flatMap { interner.id(for: $0) }?.utf8.elementsEqual(decomposed.utf8) == true
        }
        #expect(found)
    }
}
