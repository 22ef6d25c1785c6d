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
}
