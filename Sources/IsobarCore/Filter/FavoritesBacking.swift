/// Where the filter keeps each client's favorites between runs: a list of station ids per client,
/// in the order they were added.
///
/// The filter owns the live list and calls these to make each change durable; IsobarCore stays
/// free of I/O, so `isobar filter` injects the SQLite store (IsobarStore's `FavoritesStore`) and
/// tests inject `InMemoryFavorites`. Any call may throw (a damaged or read-only file): the filter
/// then reports one `error` naming `location` and keeps the favorites in memory for the session.
public protocol FavoritesBacking: AnyObject {
    /// What to name in an error (a file path, or "memory").
    var location: String { get }
    /// The client's favorites, oldest first; empty when it has none.
    func favorites(of client: String) throws -> [String]
    /// Appends `id` to the client's favorites (the caller never adds an id twice).
    func add(_ id: String, for client: String) throws
    /// Removes `id` from the client's favorites, keeping the others' order.
    func remove(_ id: String, for client: String) throws
}

/// Favorites that last as long as the process: the filter's default when no file is given
/// (`isobar filter` in a pipe), and the pure tests' backing.
public final class InMemoryFavorites: FavoritesBacking {
    public let location = "memory"
    private var lists: [String: [String]]

    public init(_ lists: [String: [String]] = [:]) {
        self.lists = lists
    }

    public func favorites(of client: String) throws -> [String] { lists[client] ?? [] }

    public func add(_ id: String, for client: String) throws { lists[client, default: []].append(id) }

    public func remove(_ id: String, for client: String) throws {
        lists[client]?.removeAll { $0 == id }
        if lists[client]?.isEmpty == true { lists[client] = nil }
    }
}
