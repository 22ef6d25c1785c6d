extension UnsafeRawBufferPointer {
    /// Whether the bytes at `start` are `expected` (false when the buffer ends first): the
    /// one-pass readers' check that a line begins the way this project's writers begin it.
    @inline(__always)
    func hasBytes(_ expected: [UInt8], at start: Int = 0) -> Bool {
        guard start >= 0, start + expected.count <= count else { return false }
        for k in expected.indices where self[start + k] != expected[k] { return false }
        return true
    }

    /// Whether a backslash or a DEL lies in `range`: eight bytes at a time (a name is tens of
    /// bytes, read for every item formatted), then byte by byte. A string without either is
    /// written by `JSONWriter` as it is (the formatter's and `VisibleLineHead`'s plain strings).
    @inline(__always)
    func hasBackslashOrDEL(in range: Range<Int>) -> Bool {
        /// Whether any byte of `word` is zero (exact: a borrow only runs past a zero byte).
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 }
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            let word = loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C) || hasZeroByte(word ^ 0x7F7F_7F7F_7F7F_7F7F) { return true }
            i += 8
        }
        while i < range.upperBound {
            if self[i] == UInt8(ascii: "\\") || self[i] == 0x7F { return true }
            i += 1
        }
        return false
    }
}
