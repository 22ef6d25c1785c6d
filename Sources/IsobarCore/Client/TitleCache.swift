/// The short titles a set made last, by their bytes, so the next item with the same title takes
/// the `String` made before instead of validating and making it again.
///
/// A set makes a title for every item it adds (a jump adds dozens per message), and the
/// formatter's titles are few and short ("65°", "4"): a title of at most seven bytes without
/// escapes is packed with its length into one word and looked up in a small direct-mapped table.
/// Such a `String` keeps its bytes inline (no storage to share), so a title taken from here is the
/// same value a new one would be. Longer titles are made each time.
struct TitleCache: Sendable {
    /// Each slot: the packed bytes and length (0: empty; a packed title is never 0, its length
    /// being at least 1), and the title they spell.
    private var slots = [(word: UInt64, title: String)](repeating: (0, ""), count: 128)

    /// The title `text` spells in `line` (as `ScannedItem.Text.string(in:)` gives it).
    @inline(__always)
    mutating func title(_ text: ScannedItem.Text, in line: UnsafeRawBufferPointer) -> String {
        let count = text.range.count
        let start = text.range.lowerBound
        guard !text.escaped, count > 0, count <= 7, start >= 0, start + 8 <= line.count else { return text.string(in: line) }
        let bytes = line.loadUnaligned(fromByteOffset: start, as: UInt64.self) & ((1 &<< UInt64(8 * count)) &- 1)
        let word = bytes | UInt64(count) &<< 56
        let slot = Int(truncatingIfNeeded: (word &* 0x9E37_79B9_7F4A_7C15) &>> 57)
        if slots[slot].word == word { return slots[slot].title }
        let made = text.string(in: line)
        slots[slot] = (word, made)
        return made
    }
}
