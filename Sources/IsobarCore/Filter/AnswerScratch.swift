/// The working arrays of one `visible` answer (``FilterEngine/send(_:full:forceMessage:into:)``),
/// kept by the engine between answers so that a pan allocates none of them: the new set's entries,
/// which of them changed, the keys that left and the positions to upsert. Growing these afresh on
/// every pan (a few reallocations each) was ~5 % of the filter's instructions per small step.
///
/// Emptied after each answer; an array that grew past 4,096 elements (a zoomed-out view) is let go
/// rather than kept.
struct AnswerScratch {
    var entries: [ShownSet.Entry] = []
    var changed: [Bool] = []
    var removed: [UInt64] = []
    var upserts: [Int32] = []

    mutating func empty() {
        entries.removeAll(keepingCapacity: entries.capacity <= 4_096)
        changed.removeAll(keepingCapacity: changed.capacity <= 4_096)
        removed.removeAll(keepingCapacity: removed.capacity <= 4_096)
        upserts.removeAll(keepingCapacity: upserts.capacity <= 4_096)
    }
}
