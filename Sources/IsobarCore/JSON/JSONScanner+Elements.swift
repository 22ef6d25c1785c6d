extension JSONScanner {
    /// Reads the array at the scanner's `[` with `element` (which must leave the scanner just past
    /// the element it read, or return nil), appending each element to `elements` and leaving the
    /// scanner just past the `]`; false when `element` declines one or the array is malformed
    /// (the scanner is then anywhere). The one-pass readers' loop over `upsert` items.
    @inline(__always)
    mutating func readElements<Element>(into elements: inout [Element], _ element: (inout JSONScanner) -> Element?) -> Bool {
        forEachElement { scanner in
            guard let item = element(&scanner) else { return false }
            elements.append(item)
            return true
        }
    }

    /// Reads the array at the scanner's `[` as `readElements` does, but hands each element to
    /// `element` to consume (leaving the scanner just past it, or returning false) instead of
    /// collecting it: the formatter writes each `upsert` item as it reads it.
    @inline(__always)
    mutating func forEachElement(_ element: (inout JSONScanner) -> Bool) -> Bool {
        index += 1  // '['
        skipWhitespaceIfAny()
        if peek() == UInt8(ascii: "]") { index += 1; return true }
        while true {
            skipWhitespaceIfAny()
            guard element(&self) else { return false }
            skipWhitespaceIfAny()
            guard let next = peek() else { return false }
            index += 1
            if next == UInt8(ascii: "]") { return true }
            guard next == UInt8(ascii: ",") else { return false }
        }
    }
}
