import Foundation
import GRDB
import IsobarCore

/// The persister's SQLite file: complete snapshots, the last `keep` of each day.
///
/// Every snapshot is written in one transaction together with its stations and the pruning of
/// older ones, in WAL mode, so a process killed at any instant leaves either the old state or the
/// new one, never half a snapshot. A file that is not an SQLite database, or that SQLite reports
/// damaged, is refused at open (`StoreError.corrupt`) rather than overwritten: old data may still
/// be recoverable, and only the operator can decide to throw it away.
///
/// "Latest" means most recently fetched (then most recently stored), so an old snapshot replayed
/// by another publisher never displaces newer data.
public final class SnapshotStore: Sendable {
    public let path: String
    /// Snapshots kept per day; older ones are deleted in the transaction that stores a new one.
    public let keep: Int
    private let database: DatabaseQueue

    /// Opens (creating if needed) the store at `path`. The directory must exist.
    public init(path: String, keep: Int = 10) throws(StoreError) {
        guard keep >= 1 else { throw .invalidArgument("keep must be at least 1 snapshot per day, not \(keep)") }
        self.path = path
        self.keep = keep
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .cannotOpen(path: path, reason: "it is a directory")
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        // Another process (an operator's sqlite3, a second persister) may hold the lock briefly.
        configuration.busyMode = .timeout(5)
        configuration.label = "isobar-store"
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL is still atomic and consistent after a crash of the process; only
            // a power loss can roll back the last commits.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError.from(error, operation: "opening", path: path)
        }
        try checkIntegrity()
        try migrate()
    }

    /// Opens the store at `path` for reading only (a read-only file or file system): it must
    /// already be a complete, healthy store (`ReadOnlyDatabase`). Every write throws.
    ///
    /// `salvaging`: the file is known to be damaged (it failed `quick_check`); open it anyway, to
    /// read back what still reads whole (`latest` passes over a snapshot with missing rows).
    public init(readingOnly path: String, keep: Int = 10, salvaging: Bool = false) throws(StoreError) {
        self.path = path
        self.keep = max(1, keep)
        do {
            database = try ReadOnlyDatabase.open(path, label: "isobar-store", quickCheck: !salvaging) { db in
                try Self.migrator.hasCompletedMigrations(db) && !Self.migrator.hasBeenSuperseded(db)
            }
        } catch {
            throw StoreError.from(error, operation: "opening for reading", path: path)
        }
    }

    /// An empty store in memory, named `path`: what persist reads when its file can be neither
    /// written nor read, so the stage runs on (holding what arrives in memory) instead of stopping.
    public static func empty(standingFor path: String, keep: Int = 10) throws(StoreError) -> SnapshotStore {
        try SnapshotStore(path: path, keep: keep, inMemory: ())
    }

    private init(path: String, keep: Int, inMemory: Void) throws(StoreError) {
        self.path = path
        self.keep = max(1, keep)
        do {
            database = try DatabaseQueue(configuration: Configuration())
            try Self.migrator.migrate(database)
        } catch {
            throw StoreError.from(error, operation: "creating an empty store in memory", path: path)
        }
    }

    /// Closes the file. Later calls on this store fail.
    public func close() throws(StoreError) {
        do { try database.close() } catch { throw StoreError.from(error, operation: "closing", path: path) }
    }

    /// Unix seconds now.
    public static func now() -> Double { Date().timeIntervalSince1970 }

    // MARK: - Writing

    /// Stores a complete snapshot atomically: its row, its stations and the pruning of the day's
    /// older snapshots to `keep`, all in one transaction. A snapshot already stored under the same
    /// day and id is not written again (replays arriving on the persister's own input cost one
    /// lookup); if this copy was fetched later, only its `fetchedAt` moves forward.
    @discardableResult
    public func save(day: Day, id: String, stations: [Station], fetchedAt: Double,
                     storedAt: Double = SnapshotStore.now()) throws(StoreError) -> SaveOutcome {
        let keep = keep
        do {
            return try database.write { db -> SaveOutcome in
                let stored = try Double.fetchOne(db, sql: "SELECT fetchedAt FROM snapshots WHERE day = ? AND id = ?",
                                                 arguments: [day.rawValue, id])
                if let stored {
                    guard fetchedAt > stored else { return .alreadyStored }
                    try db.execute(sql: "UPDATE snapshots SET fetchedAt = ?, storedAt = ? WHERE day = ? AND id = ?",
                                   arguments: [fetchedAt, storedAt, day.rawValue, id])
                    return .refreshed
                }
                try db.execute(sql: "INSERT INTO snapshots (day, id, count, fetchedAt, storedAt) VALUES (?, ?, ?, ?, ?)",
                               arguments: [day.rawValue, id, stations.count, fetchedAt, storedAt])
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO stations (snapshot, day, seq, id, name, latitude, longitude,
                                          temperature, windSpeed, windDirection, precipitation, details)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for (seq, station) in stations.enumerated() {
                    try insert.execute(arguments: [
                        id, day.rawValue, seq, station.id, station.name,
                        station.coordinate.latitude, station.coordinate.longitude,
                        station.temperature, station.windSpeed, station.windDirection, station.precipitation,
                        station.details?.json,
                    ])
                }
                return .stored(pruned: try Self.prune(db, day: day, keep: keep))
            }
        } catch {
            throw StoreError.from(error, operation: "storing snapshot \(id)", path: path)
        }
    }

    /// Moves a stored snapshot's `fetchedAt` forward when the same content was fetched again, so it
    /// counts as the latest. Returns false when no such snapshot is stored or it is not older.
    @discardableResult
    public func refresh(day: Day, id: String, fetchedAt: Double, storedAt: Double = SnapshotStore.now()) throws(StoreError) -> Bool {
        do {
            return try database.write { db in
                try db.execute(sql: "UPDATE snapshots SET fetchedAt = ?, storedAt = ? WHERE day = ? AND id = ? AND fetchedAt < ?",
                               arguments: [fetchedAt, storedAt, day.rawValue, id, fetchedAt])
                return db.changesCount > 0
            }
        } catch {
            throw StoreError.from(error, operation: "refreshing snapshot \(id)", path: path)
        }
    }

    /// Deletes all but the latest `keep` snapshots of `day` (and their stations); returns how many
    /// snapshots went. `save` already does this; it is public for a changed `keep`.
    @discardableResult
    public func prune(day: Day) throws(StoreError) -> Int {
        let keep = keep
        do {
            return try database.write { db in try Self.prune(db, day: day, keep: keep) }
        } catch {
            throw StoreError.from(error, operation: "pruning \(day.rawValue)", path: path)
        }
    }

    /// Newest data wins (`SnapshotRank`): the latest fetch, and at an equal fetch time the greater
    /// id (SQLite's BINARY collation compares UTF-8 bytes, as the rank does).
    private static let latestFirst = "ORDER BY fetchedAt DESC, id DESC"

    private static func prune(_ db: Database, day: Day, keep: Int) throws -> Int {
        let kept = "SELECT id FROM snapshots WHERE day = ?1 \(latestFirst) LIMIT ?2"
        try db.execute(sql: "DELETE FROM stations WHERE day = ?1 AND snapshot NOT IN (\(kept))",
                       arguments: [day.rawValue, keep])
        try db.execute(sql: "DELETE FROM snapshots WHERE day = ?1 AND id NOT IN (\(kept))",
                       arguments: [day.rawValue, keep])
        return db.changesCount
    }

    // MARK: - Reading

    /// The latest complete snapshot of `day`, or nil when none is stored.
    ///
    /// A snapshot whose station rows do not match its count (impossible through `save`, possible
    /// after hand edits) is passed over for the next older one.
    public func latest(day: Day) throws(StoreError) -> StoredSnapshot? {
        do {
            return try database.read { db -> StoredSnapshot? in
                let rows = try Row.fetchAll(db, sql: "SELECT id, count, fetchedAt, storedAt FROM snapshots WHERE day = ? \(Self.latestFirst)",
                                            arguments: [day.rawValue])
                for row in rows {
                    let id = try row.decode(String.self, atIndex: 0)
                    let count = try row.decode(Int.self, atIndex: 1)
                    let stations = try Self.stations(db, day: day, snapshot: id)
                    guard stations.count == count else { continue }
                    return StoredSnapshot(day: day, id: id, fetchedAt: try row.decode(Double.self, atIndex: 2),
                                          storedAt: try row.decode(Double.self, atIndex: 3), stations: stations)
                }
                return nil
            }
        } catch {
            throw StoreError.from(error, operation: "reading the latest \(day.rawValue) snapshot", path: path)
        }
    }

    /// The stored snapshots of `day`, latest first, with their `fetchedAt`.
    public func snapshots(day: Day) throws(StoreError) -> [(id: String, fetchedAt: Double)] {
        do {
            return try database.read { db in
                try Row.fetchAll(db, sql: "SELECT id, fetchedAt FROM snapshots WHERE day = ? \(Self.latestFirst)",
                                 arguments: [day.rawValue])
                    .map { row in (try row.decode(String.self, atIndex: 0), try row.decode(Double.self, atIndex: 1)) }
            }
        } catch {
            throw StoreError.from(error, operation: "listing \(day.rawValue) snapshots", path: path)
        }
    }

    /// Station rows in the whole file (for tests and diagnostics).
    public func stationRowCount() throws(StoreError) -> Int {
        do {
            return try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM stations") ?? 0 }
        } catch {
            throw StoreError.from(error, operation: "counting stations", path: path)
        }
    }

    private static func stations(_ db: Database, day: Day, snapshot: String) throws -> [Station] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, name, latitude, longitude, temperature, windSpeed, windDirection, precipitation, details
            FROM stations WHERE day = ? AND snapshot = ? ORDER BY seq
            """, arguments: [day.rawValue, snapshot])
        var stations: [Station] = []
        while let row = try rows.next() {
            stations.append(Station(
                id: try row.decode(String.self, atIndex: 0),
                name: try row.decode(String.self, atIndex: 1),
                coordinate: Coordinate(latitude: try row.decode(Double.self, atIndex: 2),
                                       longitude: try row.decode(Double.self, atIndex: 3)),
                temperature: try row.decode(Double?.self, atIndex: 4),
                windSpeed: try row.decode(Double?.self, atIndex: 5),
                windDirection: try row.decode(Double?.self, atIndex: 6),
                precipitation: try row.decode(Double?.self, atIndex: 7),
                details: try row.decode(String?.self, atIndex: 8).flatMap { text in try StationDetails.read(json: text) }))
        }
        return stations
    }

    // MARK: - Opening

    /// A damaged file is refused before anything is written to it. `quick_check` reads every page
    /// once (milliseconds for the default ten snapshots per day), cheaper than `integrity_check`.
    private func checkIntegrity() throws(StoreError) {
        let result: [String]
        do {
            result = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(3)") }
        } catch {
            throw StoreError.from(error, operation: "checking", path: path)
        }
        guard result == ["ok"] else {
            throw .corrupt(path: path, detail: "quick_check: " + result.joined(separator: "; "))
        }
    }

    private func migrate() throws(StoreError) {
        do {
            if try database.read({ db in try Self.migrator.hasBeenSuperseded(db) }) {
                throw StoreError.incompatible(path: path, detail: "it was written by a newer version of isobar")
            }
            try Self.migrator.migrate(database)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            throw StoreError.incompatible(path: path, detail: error.message ?? "its schema does not match")
        } catch {
            throw StoreError.from(error, operation: "creating the schema", path: path)
        }
    }
}
