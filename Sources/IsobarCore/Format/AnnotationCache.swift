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
    /// Annotations longer than this are not stored (none is near it: the input is at most
    /// `maxItemBytes`); it keeps an entry's offsets within 32 bits.
    static let maxOutputBytes = 1 << 24
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

    /// Where one station's annotation in one presentation (`ResolvedPresentation.cacheCode`) lies
    /// in its entry's `store` (an entry is at most `maxItemBytes` of input and 4 outputs of at
    /// most `maxOutputBytes` each: its store's offsets fit 32 bits; presentation codes are below
    /// `ResolvedPresentation.cacheCodeCount`, and `store` takes only codes that fit 32 bits).
    /// Twelve bytes, so that an entry is 72 bytes (entries are moved and copied as they are stored).
    struct Output {
        var code: Int32 = 0
        var start: Int32 = 0
        var count: Int32 = 0

        init() {}

        init(presentation: Int, start: Int, count: Int) {
            code = Int32(truncatingIfNeeded: presentation)
            self.start = Int32(truncatingIfNeeded: start)
            self.count = Int32(truncatingIfNeeded: count)
        }

        var presentation: Int { Int(code) }
        var range: Range<Int> { Int(start)..<(Int(start) + Int(count)) }
    }

    /// One station: its input item's bytes and its annotations, in one array (`store`: the input,
    /// then each output's bytes in order), so that a new entry costs one allocation and a new
    /// presentation an append.
    struct Entry {
        var hash: UInt64
        var store: [UInt8]
        /// The input's length (`inputCount`), 32 bits as in `Output`.
        private var inputLength: Int32
        /// How many outputs are held (`outputCount`).
        private var held: Int32 = 0
        /// The first `outputCount` are held, oldest first (`maxOutputsPerStation` of them at most).
        var outputs = InlineArray<4, Output>(repeating: Output())

        var inputCount: Int { Int(inputLength) }
        var outputCount: Int {
            get { Int(held) }
            set { held = Int32(truncatingIfNeeded: newValue) }
        }

        /// An entry of `input` with the one annotation `output` in `presentation`.
        init(hash: UInt64, input: UnsafeRawBufferPointer, presentation: Int, output: UnsafeRawBufferPointer) {
            self.hash = hash
            inputLength = Int32(truncatingIfNeeded: input.count)
            store = [UInt8](unsafeUninitializedCapacity: input.count + output.count) { buffer, initialized in
                let target = UnsafeMutableRawBufferPointer(buffer)
                Self.copy(input, to: target, at: 0)
                Self.copy(output, to: target, at: input.count)
                initialized = input.count + output.count
            }
            outputs[0] = Output(presentation: presentation, start: input.count, count: output.count)
            held = 1
        }

        /// The bytes stored: the input's and every output's (the cache's byte bound counts these).
        var byteCount: Int { store.count }

        func output(_ presentation: Int) -> Int? {
            for index in 0..<outputCount where outputs[index].presentation == presentation { return index }
            return nil
        }

        /// Calls `body` with the bytes of output `index`.
        func withOutput<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            let range = outputs[index].range
            return store.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }

        /// Adds `output` in `presentation`, appended to the store (what the store holds is not
        /// written again; the array grows as arrays do, by doubling, when it is full). The output
        /// held in that presentation, else the oldest when `maxOutputsPerStation` are held, is
        /// removed first: the bytes after it move down over it, in place. `output` must be bytes
        /// of a `[UInt8]` (bound to `UInt8`, as a writer's are): they are appended through a typed
        /// view.
        mutating func add(presentation: Int, output: UnsafeRawBufferPointer) {
            if let existing = self.output(presentation) {
                remove(existing)
            } else if outputCount >= AnnotationCache.maxOutputsPerStation {
                remove(0)
            }
            outputs[outputCount] = Output(presentation: presentation, start: store.count, count: output.count)
            outputCount += 1
            // The typed view appends by one copy (the bytes are a writer's `[UInt8]`, bound to UInt8).
            store.append(contentsOf: output.assumingMemoryBound(to: UInt8.self))
        }

        /// Removes output `index`: its bytes cut out of the store, the outputs after it moved one
        /// place down with their starts moved back by its length (one pass).
        private mutating func remove(_ index: Int) {
            let removed = outputs[index]
            store.removeSubrange(removed.range)
            for next in (index + 1)..<outputCount {
                outputs[next - 1] = outputs[next]
                outputs[next - 1].start -= removed.count
            }
            outputCount -= 1
        }

        /// Copies `source` into `target` at byte `at` (room checked by the callers' totals).
        private static func copy(_ source: UnsafeRawBufferPointer, to target: UnsafeMutableRawBufferPointer, at: Int) {
            guard !source.isEmpty, let from = source.baseAddress, let to = target.baseAddress else { return }
            memcpy(to + at, from, source.count)
        }
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
        /// What `warm` read, summed: kept only so that its reads are not optimised away.
        var touched = 0

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

        /// Reads, for each of `hashes` (at most ``ItemReadAhead/batch``), what `match` will read for
        /// it (its slot, its entry, and its stored bytes, one load per 64), each step for every hash
        /// before the next step, so that the misses of different items overlap (``ItemReadAhead``).
        /// Changes nothing; returns a sum of what it read, which the caller keeps (``touched``) so
        /// the reads are not optimised away.
        func warm(_ hashes: UnsafeBufferPointer<UInt64>) -> Int {
            guard !slots.isEmpty else { return 0 }
            let mask = slots.count - 1
            var sum = 0
            slots.withUnsafeBufferPointer { slots in
                for hash in hashes { sum &+= Int(slots[Int(truncatingIfNeeded: hash) & mask]) }
            }
            var found = InlineArray<64, Int32>(repeating: -1)
            let count = min(hashes.count, 64)
            for k in 0..<count {
                if let index = find(hashes[k]) { found[k] = Int32(truncatingIfNeeded: index) }
            }
            for k in 0..<count where found[k] >= 0 {
                entries[Int(found[k])].store.withUnsafeBufferPointer { store in
                    var at = 0
                    while at < store.count {
                        sum &+= Int(store[at])
                        at += 64
                    }
                }
            }
            return sum
        }

        /// The entry whose stored input is exactly the item starting at `start` of `bytes`, if any.
        func match(_ hash: UInt64, _ bytes: UnsafeRawBufferPointer, at start: Int) -> Int? {
            guard let index = find(hash) else { return nil }
            let count = entries[index].inputCount
            guard start + count <= bytes.count else { return nil }
            return Self.equal(entries[index].store, prefix: count, UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])) ? index : nil
        }

        /// Stores `output` as the annotation of the item `input` (id hash `hash`) in `presentation`.
        /// (An entry held is changed where it lies: a copy of it would share its store, and
        /// changing the copy would copy the store.)
        mutating func store(_ hash: UInt64, input: UnsafeRawBufferPointer, presentation: Int, output: UnsafeRawBufferPointer,
                            maxStations: Int, maxBytes: Int) {
            guard input.count <= AnnotationCache.maxItemBytes, output.count <= AnnotationCache.maxOutputBytes,
                  input.count + output.count <= maxBytes, Int32(exactly: presentation) != nil else { return }
            if let index = find(hash) {
                bytes -= entries[index].byteCount
                if Self.equal(entries[index].store, prefix: entries[index].inputCount, input) {
                    entries[index].add(presentation: presentation, output: output)
                } else {
                    entries[index] = Entry(hash: hash, input: input, presentation: presentation, output: output)
                }
                let count = entries[index].byteCount
                if bytes + count > maxBytes {
                    // Past the bound: start again from this item and this output alone (within
                    // `maxBytes` by the guard above; the whole entry may not be).
                    reset()
                    insert(Entry(hash: hash, input: input, presentation: presentation, output: output))
                } else {
                    bytes += count
                }
                return
            }
            if entries.count >= maxStations || bytes + input.count + output.count > maxBytes { reset() }
            insert(Entry(hash: hash, input: input, presentation: presentation, output: output))
        }

        /// Whether the first `count` bytes of `stored` (at most its length) are exactly `bytes`. Two
        /// empty buffers are equal by length alone (either may have no address).
        static func equal(_ stored: [UInt8], prefix count: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
            guard count == bytes.count, count <= stored.count else { return false }
            guard !bytes.isEmpty, let base = bytes.baseAddress else { return true }
            return stored.withUnsafeBytes { storedBytes in
                guard let storedBase = storedBytes.baseAddress else { return false }  // not empty, so never
                return memcmp(storedBase, base, count) == 0
            }
        }

        /// Adds a new entry (its hash not in the table), growing the table to keep it half empty.
        /// (`consuming`: the entry is moved into the table, not copied and then released.)
        private mutating func insert(_ entry: consuming Entry) {
            if (entries.count + 1) * 2 > slots.count { grow() }
            bytes += entry.byteCount
            entries.append(consume entry)
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
