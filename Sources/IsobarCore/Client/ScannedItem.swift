/// One `upsert` item as the one-pass reader (``AnnotationItemScan``) read it, validated but not yet
/// kept: its numbers, and where its texts lie in the line. Plain data (no `String`, nothing
/// retained): a line's items gather in an array that grows by copying bytes, and no text is made
/// for the items of a line that a later member makes the reader decline. The set makes the
/// ``AnnotationSet/Item`` once the whole line has been read (``item(in:)``, or by its id's bytes
/// in its table, where an id it already holds makes no new `String`).
struct ScannedItem: Equatable {
    /// A string member's bytes between its quotes, and whether they hold an escape to undo.
    struct Text: Equatable {
        var range: Range<Int>
        var escaped: Bool

        /// An absent or null member: the empty text.
        static var empty: Text { Text(range: 0..<0, escaped: false) }

        /// The text these bytes of `line` spell.
        @inline(__always)
        func string(in line: UnsafeRawBufferPointer) -> String {
            if range.isEmpty { return "" }
            if escaped { return JSONDecoding.unescape(line, range) }
            return String(decoding: UnsafeRawBufferPointer(rebasing: line[range]), as: UTF8.self)
        }
    }

    var id: Text
    var coordinate: Coordinate
    var title = Text.empty
    var count = 1
    var stale = false
    /// `subtitle`, `cluster` and `rotation` are read only for a set that keeps detail.
    var subtitle = Text.empty
    var cluster = false
    var rotation: Double?

    /// Sets every member of `item` but its id (a set that holds the id keeps its `String`), the
    /// title to `title` (what ``title`` spells, made by the caller: a set takes it from its
    /// ``TitleCache``).
    @inline(__always)
    func fill(_ item: inout AnnotationSet.Item, in line: UnsafeRawBufferPointer, title: String) {
        item.coordinate = coordinate
        item.title = title
        item.count = count
        item.stale = stale
        item.subtitle = subtitle.string(in: line)
        item.cluster = cluster
        item.rotation = rotation
    }

    /// The item as the set keeps it, with the id and title given (what ``id`` and ``title``
    /// spell, made by the caller: the table makes the id, the set takes the title from its
    /// ``TitleCache``).
    @inline(__always)
    func item(id: String, title: String, in line: UnsafeRawBufferPointer) -> AnnotationSet.Item {
        AnnotationSet.Item(id: id, coordinate: coordinate, title: title, count: count, stale: stale,
                           subtitle: subtitle.string(in: line), cluster: cluster, rotation: rotation)
    }

    /// The item as the set keeps it.
    func item(in line: UnsafeRawBufferPointer) -> AnnotationSet.Item {
        item(id: id.string(in: line), title: title.string(in: line), in: line)
    }
}
