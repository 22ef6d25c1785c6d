/// One client's favorites as the filter holds them: the ids in the order added, and a fingerprint
/// of what it was last sent (ids, both days' values, presentation), so a new snapshot sends the
/// list again only when something the client sees in it changed.
struct FavoriteList {
    var ids: [String]
    /// nil: never sent.
    var sent: UInt64?
}
