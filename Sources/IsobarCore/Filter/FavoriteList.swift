/// One client's favorites as the filter holds them: the entries (stations, places, pins) in the
/// client's order, and a fingerprint of what it was last sent (entries, both days' values,
/// presentation), so a new snapshot sends the list again only when something the client sees in
/// it changed.
struct FavoriteList {
    var entries: [FavoriteEntry]
    /// nil: never sent.
    var sent: UInt64?

    func index(of entry: FavoriteEntry) -> Int? { entries.firstIndex { $0.sameFavorite(as: entry) } }
}
