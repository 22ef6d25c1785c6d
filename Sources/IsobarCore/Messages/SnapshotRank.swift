/// The order in which a day's snapshots supersede each other: newest data wins.
///
/// A consumer (filter, persist, fetch's republish) holding a day's snapshot replaces it only with
/// one of a higher rank: a later `fetchedAt`, or, at an equal `fetchedAt`, a snapshot id greater
/// in UTF-8 byte order. Every consumer that has seen the same set of complete snapshots therefore
/// holds the same one, whatever order replays arrived in (a persister replaying an older stored
/// snapshot after the fetcher published a newer one changes nothing). A snapshot with the same id
/// is the same content: it never replaces what is held (see `FilterEngine` for its metadata).
/// `fetchedAt` is the fetcher's wall clock; a fetcher whose clock steps back publishes data that
/// loses to what consumers hold until its clock passes the old time again (PROTOCOL.md).
public struct SnapshotRank: Sendable, Equatable, Comparable {
    public var fetchedAt: Double
    public var snapshot: String

    public init(fetchedAt: Double, snapshot: String) {
        self.fetchedAt = fetchedAt
        self.snapshot = snapshot
    }

    public init(_ end: SnapshotEnd) {
        self.init(fetchedAt: end.fetchedAt, snapshot: end.snapshot)
    }

    public static func < (a: SnapshotRank, b: SnapshotRank) -> Bool {
        if a.fetchedAt != b.fetchedAt { return a.fetchedAt < b.fetchedAt }
        return a.snapshot.utf8.lexicographicallyPrecedes(b.snapshot.utf8)
    }
}
