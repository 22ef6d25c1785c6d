/// What the favorites file may hold, so that a flood of names and ids cannot grow it without end.
///
/// Client names are not secrets without tokens: anyone who may connect can store favorites under
/// as many names as they like. So the file holds at most `names` names and `favorites` ids in
/// all; an addition that would pass either drops, whole, the names used longest ago (a name is
/// used when its list is read at a join or changed), never the name being changed. An id past
/// `perName` is refused (the filter refuses it first: `FilterOptions.maxFavorites`, the same 200).
public struct FavoritesLimits: Sendable, Equatable {
    /// Most client names with favorites in the file.
    public var names: Int
    /// Most favorites in the whole file (all names together).
    public var favorites: Int
    /// Most favorites of one name.
    public var perName: Int

    /// The defaults: 10,000 names, 100,000 favorites, 200 per name. The file then stays under
    /// about 8 MB with everyday names and ids (measured at 200,000: 16.7 MB with 18-byte names and
    /// 11-byte ids) and under about 75 MB with the longest allowed (64-byte names, 256-byte ids:
    /// 148 MB at 200,000).
    public init(names: Int = 10_000, favorites: Int = 100_000, perName: Int = 200) {
        self.names = max(1, names)
        self.favorites = max(1, favorites)
        self.perName = max(1, perName)
    }
}
