/// The next items of a filter line, found and hashed ahead of the formatter's pass over them
/// (`FormatEngine.annotationsFromFilterLine`), up to ``batch`` at a time, with what their cache
/// look-ups will read loaded at once (`AnnotationCache.State.warm`): a line's items are mostly
/// stations shown long ago, so one item's look-up alone waits for three cache misses in turn
/// (slot, entry, stored bytes); read together, the misses of a batch overlap. The pass then takes
/// each item's id hash from here instead of hashing the id again.
///
/// Items are found by their first bytes (`FormatEngine.nextItemIDHash`); an item not found here
/// (an escaped id) gets no hash, and its look-up hashes as before. The hash of a found item is the
/// one the look-up would compute from the same bytes, so nothing read here changes an answer.
struct ItemReadAhead {
    /// Items found and warmed together: enough to keep the misses the core can wait for at once in
    /// flight, few enough that what is read is still cached when the pass reaches it.
    static let batch = 64

    private var starts = InlineArray<64, Int>(repeating: 0)
    private var hashes = InlineArray<64, UInt64>(repeating: 0)
    private var count = 0
    private var next = 0
    /// The end of the line was reached: no batch after this one.
    private var finished = false

    init() {}

    /// The id hash of the item whose `{` is at `start`, when it was found ahead; reads (and warms)
    /// the next batch from `start` when this one is used up. Items must be asked for in order.
    mutating func hash(at start: Int, in line: UnsafeRawBufferPointer, cache state: UnsafeMutablePointer<AnnotationCache.State>) -> UInt64? {
        if next == count && !finished { read(line, from: start, cache: state) }
        while next < count && starts[next] < start { next += 1 }
        guard next < count, starts[next] == start else { return nil }
        next += 1
        return hashes[next - 1]
    }

    private mutating func read(_ line: UnsafeRawBufferPointer, from start: Int, cache state: UnsafeMutablePointer<AnnotationCache.State>) {
        count = 0
        next = 0
        var at = start
        let seed = state.pointee.seed
        while count < Self.batch, let hash = FormatEngine.nextItemIDHash(line, from: &at, seed: seed) {
            starts[count] = at - 1  // `at` is past the item's `{`
            hashes[count] = hash
            count += 1
        }
        if count < Self.batch { finished = true }
        let found = count
        state.pointee.touched &+= hashes.span.withUnsafeBufferPointer { state.pointee.warm(UnsafeBufferPointer(rebasing: $0[..<found])) }
    }
}
