import Foundation
import GRDB
import IsobarCore

/// Each client's favorites (stations, places, pins) in an SQLite file of their own (`favorites.sqlite` beside the
/// snapshot store), the filter's durable `FavoritesBacking`.
///
/// A separate file, not tables in the snapshot store: the filter writes it and persist writes
/// the other, so neither waits on the other's lock, and a damaged favorites file can never cost
/// snapshot data (or the reverse). WAL mode and one transaction per change, as the snapshot
/// store, so a killed filter leaves the list before or after a change, never between.
///
/// Opening never throws: a file that cannot be opened (damaged, not a database, a newer schema)
/// is remembered, and every call throws that `StoreError`, which names the file. A file that can
/// only be read (a read-only file or file system) is opened for reading: the stored lists are
/// still served, and every change throws `StoreError.readOnly`. The filter reports either once
/// and keeps changes in memory; the file is left untouched.
public final class FavoritesStore: FavoritesBacking, Sendable {
    public let path: String
    public var location: String { path }
    /// What the file may hold (`FavoritesLimits`).
    public let limits: FavoritesLimits
    private let state: State

    /// Open, open for reading only (and why), or why not at all.
    private enum State: Sendable {
        case open(DatabaseQueue)
        case readOnly(DatabaseQueue, StoreError)
        case unusable(StoreError)
    }

    /// Opens (creating if needed) the favorites file at `path`, creating its directory.
    public init(path: String, limits: FavoritesLimits = FavoritesLimits()) {
        self.path = path
        self.limits = limits
        do {
            try DataDirectory.create(parentOf: path)
            state = .open(try Self.open(path))
        } catch .cannotOpen(let path, let reason) {
            let error = StoreError.readOnly(path: path, reason: reason)
            if let database = try? Self.openForReading(path) {
                state = .readOnly(database, error)
            } else {
                state = .unusable(.cannotOpen(path: path, reason: reason))
            }
        } catch {
            state = .unusable(error)
        }
    }

    /// Why the file cannot be used at all, or nil when it can at least be read.
    public var openError: StoreError? {
        if case .unusable(let error) = state { return error }
        return nil
    }

    /// Why changes cannot be stored (the file is unusable or read-only), or nil when they can.
    public var writeError: StoreError? {
        switch state {
        case .open: return nil
        case .readOnly(_, let error), .unusable(let error): return error
        }
    }

    /// The client's list; reading it counts as a use of the name (when the file can be written).
    /// A row that cannot be read back (a hand-edited place or pin) is left out, not fatal.
    public func favorites(of client: String) throws -> [FavoriteEntry] {
        let rows = try run("reading the favorites of \(client)") { db in
            try db.read { db in try Self.rows(of: client, db) }
        }
        if !rows.isEmpty, case .open(let database) = state {
            try? database.write { db in try Self.markUsed(client, db) }
        }
        return rows.compactMap { FavoriteEntry(kind: $0.kind, key: $0.key, data: $0.data) }
    }

    /// A client's rows in order. A file still at v1 or v2 (opened read-only, so not migrated)
    /// holds station ids only, in `id`.
    private static func rows(of client: String, _ db: Database) throws -> [(kind: String, key: String, data: String?)] {
        guard try db.columns(in: "favorites").contains(where: { $0.name == "kind" }) else {
            return try String.fetchAll(db, sql: "SELECT id FROM favorites WHERE client = ? ORDER BY position", arguments: [client])
                .map { ("station", $0, nil) }
        }
        return try Row.fetchAll(db, sql: "SELECT kind, id, data FROM favorites WHERE client = ? ORDER BY position", arguments: [client])
            .map { ($0["kind"], $0["id"], $0["data"]) }
    }

    /// Appends `entry`; then, if the file holds more names or favorites than `limits` allows, drops
    /// the names used longest ago. Throws past `limits.perName`.
    public func add(_ entry: FavoriteEntry, for client: String) throws {
        let limits = limits
        try run(writing: true, "adding favorite \(entry.kind) \(entry.key) of \(client)") { db in
            try db.write { db in
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM favorites WHERE client = ?", arguments: [client]) ?? 0
                guard count < limits.perName else {
                    throw StoreError.invalidArgument("client \"\(client)\" already has \(limits.perName) favorites in \(path); remove one first")
                }
                let next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(position), 0) + 1 FROM favorites WHERE client = ?", arguments: [client]) ?? 1
                try Self.insert(entry, client: client, position: next, db)
                try Self.markUsed(client, db)
                try Self.expire(beyond: limits, sparing: client, db)
            }
        }
    }

    public func remove(_ entry: FavoriteEntry, for client: String) throws {
        try run(writing: true, "removing favorite \(entry.kind) \(entry.key) of \(client)") { db in
            try db.write { db in
                try db.execute(sql: "DELETE FROM favorites WHERE client = ? AND kind = ? AND id = ?", arguments: [client, entry.kind, entry.key])
                try Self.markUsed(client, db)
            }
        }
    }

    /// Replaces the client's list in one transaction (a killed filter leaves the old list or the
    /// new one). Throws past `limits.perName`.
    public func replace(with entries: [FavoriteEntry], for client: String) throws {
        let limits = limits
        try run(writing: true, "replacing the favorites of \(client)") { db in
            try db.write { db in
                guard entries.count <= limits.perName else {
                    throw StoreError.invalidArgument("a list of \(entries.count) favorites for \"\(client)\" is over \(limits.perName) in \(path)")
                }
                try db.execute(sql: "DELETE FROM favorites WHERE client = ?", arguments: [client])
                for (position, entry) in entries.enumerated() { try Self.insert(entry, client: client, position: position + 1, db) }
                try Self.markUsed(client, db)
                try Self.expire(beyond: limits, sparing: client, db)
            }
        }
    }

    private static func insert(_ entry: FavoriteEntry, client: String, position: Int, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO favorites (client, kind, id, position, data) VALUES (?, ?, ?, ?, ?)",
                       arguments: [client, entry.kind, entry.key, position, entry.storedData])
    }

    /// How many names and favorites the file holds (for tests and diagnostics).
    public func size() throws -> (names: Int, favorites: Int) {
        try run("counting favorites") { db in
            try db.read { db in
                (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM names") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM favorites") ?? 0)
            }
        }
    }

    /// Moves `client` to the most recently used end (a counter, not a clock: only the order
    /// matters), or forgets it when its list is empty.
    private static func markUsed(_ client: String, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM favorites WHERE client = ?)", arguments: [client]) == true else {
            try db.execute(sql: "DELETE FROM names WHERE client = ?", arguments: [client])
            return
        }
        try db.execute(sql: """
            INSERT INTO names (client, used) VALUES (?1, (SELECT COALESCE(MAX(used), 0) + 1 FROM names))
            ON CONFLICT (client) DO UPDATE SET used = excluded.used
            """, arguments: [client])
    }

    /// Drops whole names, used longest ago first, until the file is within `limits`.
    private static func expire(beyond limits: FavoritesLimits, sparing client: String, _ db: Database) throws {
        while try (Int.fetchOne(db, sql: "SELECT COUNT(*) FROM names") ?? 0) > limits.names
                || (Int.fetchOne(db, sql: "SELECT COUNT(*) FROM favorites") ?? 0) > limits.favorites {
            guard let oldest = try String.fetchOne(db, sql: "SELECT client FROM names WHERE client != ? ORDER BY used LIMIT 1",
                                                   arguments: [client]) else { return }
            try db.execute(sql: "DELETE FROM favorites WHERE client = ?", arguments: [oldest])
            try db.execute(sql: "DELETE FROM names WHERE client = ?", arguments: [oldest])
        }
    }

    /// Closes the file. Later calls fail.
    public func close() throws(StoreError) {
        let database: DatabaseQueue
        switch state {
        case .open(let queue), .readOnly(let queue, _): database = queue
        case .unusable: return
        }
        do { try database.close() } catch { throw StoreError.from(error, operation: "closing", path: path) }
    }

    private func run<T>(writing: Bool = false, _ operation: String, _ body: (DatabaseQueue) throws -> T) throws(StoreError) -> T {
        switch state {
        case .unusable(let error):
            throw error
        case .readOnly(_, let error) where writing:
            throw error
        case .open(let database), .readOnly(let database, _):
            do { return try body(database) } catch { throw StoreError.from(error, operation: operation, path: path) }
        }
    }

    private static func open(_ path: String) throws(StoreError) -> DatabaseQueue {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .cannotOpen(path: path, reason: "it is a directory")
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.label = "isobar-favorites"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            let check = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(3)") }
            guard check == ["ok"] else { throw StoreError.corrupt(path: path, detail: "quick_check: " + check.joined(separator: "; ")) }
            if try database.read({ db in try migrator.hasBeenSuperseded(db) }) {
                throw StoreError.incompatible(path: path, detail: "it was written by a newer version of isobar")
            }
            try migrator.migrate(database)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, operation: "opening", path: path)
        }
        return database
    }

    /// Opens a file that cannot be written, for reading only: it must already be a complete,
    /// healthy favorites store (`ReadOnlyDatabase`); names are not marked used in it.
    private static func openForReading(_ path: String) throws -> DatabaseQueue {
        // A file of any version since v1 can be read: `favorites` is all a reader needs.
        try ReadOnlyDatabase.open(path, label: "isobar-favorites") { db in
            try db.tableExists("favorites") && !migrator.hasBeenSuperseded(db)
        }
    }

    /// The schema, as GRDB migrations (append new ones; never edit a shipped one). `position`
    /// keeps the order of adding; readable with `sqlite3` like the snapshot store.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: favorites") { db in
            try db.execute(sql: """
                CREATE TABLE favorites (
                    client TEXT NOT NULL,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (client, id)
                ) WITHOUT ROWID;
                CREATE INDEX favorites_in_order ON favorites (client, position);
                """)
        }
        // Issue 27: the names in the order of their last use, to drop the oldest when the file
        // is full (`FavoritesLimits`). Names already stored count as used before any new use.
        migrator.registerMigration("v2: names by last use") { db in
            try db.execute(sql: """
                CREATE TABLE names (
                    client TEXT NOT NULL PRIMARY KEY,
                    used INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX names_by_use ON names (used);
                INSERT INTO names (client, used) SELECT DISTINCT client, 0 FROM favorites;
                """)
        }
        // Issue 28: places and dropped pins beside stations, in one list. The key becomes
        // (client, kind, id), so a station id can never collide with a place's or a pin's key;
        // `data` holds the place or pin as JSON. Stored station ids become kind 'station', in
        // their order.
        migrator.registerMigration("v3: places and pins") { db in
            try db.execute(sql: """
                CREATE TABLE favorites_v3 (
                    client TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    data TEXT,
                    PRIMARY KEY (client, kind, id)
                ) WITHOUT ROWID;
                INSERT INTO favorites_v3 (client, kind, id, position, data) SELECT client, 'station', id, position, NULL FROM favorites;
                DROP TABLE favorites;
                ALTER TABLE favorites_v3 RENAME TO favorites;
                CREATE INDEX favorites_in_order ON favorites (client, position);
                """)
        }
        return migrator
    }()
}
