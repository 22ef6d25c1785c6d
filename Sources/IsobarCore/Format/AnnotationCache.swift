import Synchronization

/// The annotations the formatter wrote for the stations of earlier `visible` lines, so that a
/// station seen again with the same data costs a lookup, a comparison and a copy instead of a
/// parse and a format (a pan's `upsert` is mostly stations other clients were just shown).
///
/// Keyed by station id; each entry holds the item's exact input bytes (`{"id":…}` as the filter
/// wrote it) and the annotation written for it in each presentation seen (at most
/// ``maxOutputsPerStation``). A new item is taken from the cache only when its bytes equal the
/// stored input byte for byte, so a station whose data, name, position or staleness changed is
/// formatted again (and replaces the entry): the answer is always exactly what formatting it would
/// give. Only items the one-pass reader accepts (`AnnotationInput.scan`) are stored, so an equal
/// item is known valid without scanning it again (a JSON object's text ends where it ends).
///
/// Bounded (docs/security.md, "Formatter cache"): at most `maxStations` entries and `maxBytes` of
/// stored text; an insert past either bound empties the cache first (it refills from the next
/// lines), and items longer than ``maxItemBytes`` are never stored. Hash positions are seeded per
/// process (`FNV1a.tableHash`), and a position shared by two ids only costs a miss.
final class AnnotationCache: Sendable {
    /// Default bound on stations held: above a whole feed's count in the benchmarks (100,000).
    static let defaultMaxStations = 131_072
    /// Default bound on stored bytes (inputs and outputs): ~450 bytes a station at the default count.
    static let defaultMaxBytes = 64 << 20
    /// Items longer than this are formatted every time.
    static let maxItemBytes = 2_048
    /// Presentations kept per station (a newer one replaces the oldest).
    static let maxOutputsPerStation = 4

    let maxStations: Int
    let maxBytes: Int
    let state: Mutex<State>

    init(maxStations: Int = defaultMaxStations, maxBytes: Int = defaultMaxBytes) {
        self.maxStations = max(1, maxStations)
        self.maxBytes = max(1, maxBytes)
        state = Mutex(State(seed: UInt64.random(in: .min ... .max)))
    }

    /// Stations held and bytes stored (tests, diagnostics).
    var counts: (stations: Int, bytes: Int, resets: Int) {
        state.withLock { ($0.entries.count, $0.bytes, $0.resets) }
    }

    /// One station's annotation in one presentation (`ResolvedPresentation.cacheCode`).
    struct Output {
        var presentation: Int
        var bytes: [UInt8]
    }

    /// One station: its input item's bytes and its annotations.
    struct Entry {
        var hash: UInt64
        var input: [UInt8]
        var outputs: [Output]

        var byteCount: Int { outputs.reduce(input.count) { $0 + $1.bytes.count } }

        func output(_ presentation: Int) -> Int? { outputs.firstIndex { $0.presentation == presentation } }
    }

    /// The table, owned by whoever holds the lock (one formatter thread).
    struct State {
        let seed: UInt64
        /// Open addressing, linear probing: entry index + 1, 0 empty; a power of two long.
        var slots: [Int32] = []
        var entries: [Entry] = []
        var bytes = 0
        var resets = 0
        /// The provenance numbers of the last `visible` head that needed printing (not entries:
        /// kept across resets; at most `PrintedNumber.maxKeptText` bytes of text each).
        var headNumbers = VisibleLineHead.PrintedNumbers()

        init(seed: UInt64) { self.seed = seed }

        func hash(id: UnsafeRawBufferPointer) -> UInt64 { FNV1a.tableHash(bytes: id, seed: seed) }

        /// The entry at `hash`, if any.
        func find(_ hash: UInt64) -> Int? {
            guard !slots.isEmpty else { return nil }
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: hash) & mask
            while true {
                let slot = slots[i]
                if slot == 0 { return nil }
                if entries[Int(slot) - 1].hash == hash { return Int(slot) - 1 }
                i = (i + 1) & mask
            }
        }

        /// The entry whose stored input is exactly the item starting at `start` of `bytes`, if any.
        func match(_ hash: UInt64, _ bytes: UnsafeRawBufferPointer, at start: Int) -> Int? {
            guard let index = find(hash) else { return nil }
            let count = entries[index].input.count
            guard start + count <= bytes.count else { return nil }
            return Self.equal(entries[index].input, UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])) ? index : nil
        }

        /// Stores `output` as the annotation of the item `input` (id hash `hash`) in `presentation`.
        /// (An entry held is changed where it lies: a copy of it would share its arrays, and
        /// changing the copy's list of outputs would copy that list.)
        mutating func store(_ hash: UInt64, input: UnsafeRawBufferPointer, presentation: Int, output: UnsafeRawBufferPointer,
                            maxStations: Int, maxBytes: Int) {
            guard input.count <= AnnotationCache.maxItemBytes, input.count + output.count <= maxBytes else { return }
            let added = Output(presentation: presentation, bytes: Array(output))
            if let index = find(hash) {
                bytes -= entries[index].byteCount
                if Self.equal(entries[index].input, input) {
                    if let old = entries[index].output(presentation) {
                        entries[index].outputs[old] = added
                    } else {
                        if entries[index].outputs.count >= AnnotationCache.maxOutputsPerStation { entries[index].outputs.removeFirst() }
                        entries[index].outputs.append(added)
                    }
                } else {
                    entries[index] = Entry(hash: hash, input: Array(input), outputs: [added])
                }
                let count = entries[index].byteCount
                if bytes + count > maxBytes {
                    let entry = entries[index]
                    reset()
                    insert(entry)
                } else {
                    bytes += count
                }
                return
            }
            let entry = Entry(hash: hash, input: Array(input), outputs: [added])
            if entries.count >= maxStations || bytes + entry.byteCount > maxBytes { reset() }
            insert(entry)
        }

        /// Whether `stored` holds exactly the bytes of `bytes`. Two empty buffers are equal by
        /// length alone (either may have no address).
        static func equal(_ stored: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
            guard stored.count == bytes.count else { return false }
            guard !bytes.isEmpty, let base = bytes.baseAddress else { return true }
            return stored.withUnsafeBytes { storedBytes in
                guard let storedBase = storedBytes.baseAddress else { return false }  // not empty, so never
                return memcmp(storedBase, base, bytes.count) == 0
            }
        }

        /// Adds a new entry (its hash not in the table), growing the table to keep it half empty.
        private mutating func insert(_ entry: Entry) {
            if (entries.count + 1) * 2 > slots.count { grow() }
            entries.append(entry)
            bytes += entry.byteCount
            place(entries.count - 1)
        }

        private mutating func place(_ index: Int) {
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: entries[index].hash) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(index + 1)
        }

        private mutating func grow() {
            slots = Array(repeating: 0, count: max(64, slots.count * 2))
            for index in entries.indices { place(index) }
        }

        /// Empties the cache (an insert past a bound).
        mutating func reset() {
            entries.removeAll(keepingCapacity: true)
            slots = []
            bytes = 0
            resets += 1
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
