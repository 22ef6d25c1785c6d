/// What `SnapshotStore.save` did with a snapshot.
public enum SaveOutcome: Sendable, Equatable {
    /// Written, and `pruned` older snapshots of the same day deleted in the same transaction.
    case stored(pruned: Int)
    /// A snapshot with this id was already stored for the day; nothing was written.
    case alreadyStored
    /// Already stored, but this copy was fetched later: only its `fetchedAt` moved forward, so the
    /// same content fetched again (A, B, then A again) becomes the latest without rewriting it.
    case refreshed
}
