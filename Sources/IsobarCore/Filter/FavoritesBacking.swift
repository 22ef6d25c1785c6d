/// Where the filter keeps each client's favorites between runs: a list of entries (stations,
/// places, pins) per client, in the client's order.
///
/// The filter owns the live list and calls these to make each change durable; IsobarCore stays
/// free of I/O, so `isobar filter` injects the SQLite store (IsobarStore's `FavoritesStore`) and
/// tests inject `InMemoryFavorites`. Any call may throw (a damaged or read-only file): the filter
/// then reports one `error` naming `location` and keeps the favorites in memory for the session.
public protocol FavoritesBacking: AnyObject {
    /// What to name in an error (a file path, or "memory").
    var location: String { get }
    /// The client's favorites, in order; empty when it has none.
    func favorites(of client: String) throws -> [FavoriteEntry]
    /// Appends `entry` to the client's favorites (the caller never adds one twice).
    func add(_ entry: FavoriteEntry, for client: String) throws
    /// Removes the entry that is the same favorite as `entry`, keeping the others' order.
    func remove(_ entry: FavoriteEntry, for client: String) throws
    /// Replaces the client's whole list (no two entries the same favorite), in one change.
    func replace(with entries: [FavoriteEntry], for client: String) throws
}

/// Favorites that last as long as the process: the filter's default when no file is given
/// (`isobar filter` in a pipe), and the pure tests' backing.
public final class InMemoryFavorites: FavoritesBacking {
    public let location = "memory"
    private var lists: [String: [FavoriteEntry]]

    public init(entries lists: [String: [FavoriteEntry]]) {
        self.lists = lists
    }

    /// Lists of station ids (the common case in tests).
    public convenience init(_ lists: [String: [String]] = [:]) {
        self.init(entries: lists.mapValues { $0.map(FavoriteEntry.station) })
    }

    public func favorites(of client: String) throws -> [FavoriteEntry] { lists[client] ?? [] }

    public func add(_ entry: FavoriteEntry, for client: String) throws { lists[client, default: []].append(entry) }

    public func remove(_ entry: FavoriteEntry, for client: String) throws {
        lists[client]?.removeAll { $0.sameFavorite(as: entry) }
        if lists[client]?.isEmpty == true { lists[client] = nil }
    }

    public func replace(with entries: [FavoriteEntry], for client: String) throws {
        lists[client] = entries.isEmpty ? nil : entries
    }
}
