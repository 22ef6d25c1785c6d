extension UnsafeRawBufferPointer {
    /// Whether the bytes at `start` are `expected` (false when the buffer ends first): the
    /// one-pass readers' check that a line begins the way this project's writers begin it.
    @inline(__always)
    func hasBytes(_ expected: [UInt8], at start: Int = 0) -> Bool {
        guard start >= 0, start + expected.count <= count else { return false }
        for k in expected.indices where self[start + k] != expected[k] { return false }
        return true
    }
}
