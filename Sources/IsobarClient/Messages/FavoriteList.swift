/// `starred`: the client's favorites, in the order added, with each day's title and details
/// (PROTOCOL.md "starred"). `count` is the badge. Sent on join, on every `favorite` request and
/// when new data changes what the list shows.
public struct FavoriteList: Sendable, Hashable, Codable {
    public struct Item: Sendable, Hashable, Codable, Identifiable {
        /// One day's values of a favorite.
        public struct DayValues: Sendable, Hashable, Codable {
            public var title: String
            public var details: [DetailLine]
        }

        public var id: String
        /// False when neither day's data holds the id (kept, shown as unknown).
        public var known: Bool
        public var name: String?
        public var coordinate: MapAnnotation.Coordinate?
        public var today: DayValues?
        public var tomorrow: DayValues?
    }

    /// `joined`, `added`, `removed`, `unchanged`, `updated` or `resync`.
    public var reason: String
    public var items: [Item]
    public var count: Int

    public init(reason: String, items: [Item], count: Int) {
        self.reason = reason
        self.items = items
        self.count = count
    }
}
