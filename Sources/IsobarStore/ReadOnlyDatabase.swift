import Foundation
import GRDB

/// Opens an SQLite file that cannot be written (a read-only file or file system) for reading.
///
/// A WAL database opened read-only still needs its `-shm` file, which a read-only file system
/// cannot hold, so the file is opened as an SQLite URI with `immutable=1` (the system SQLite is
/// built with URI file names on): no locks, no `-shm`. The price: changes left in a `-wal` file
/// beside it by a process that was killed are not seen, and nothing can be done about them on a
/// read-only file system anyway. The file must pass `quick_check` and `readable` (its schema holds
/// what the reader needs): nothing can be created or migrated in it.
enum ReadOnlyDatabase {
    /// `quickCheck` false skips the health check: only for salvaging what can still be read from
    /// a file already known to be damaged.
    static func open(_ path: String, label: String, quickCheck: Bool = true, readable: (Database) throws -> Bool) throws -> DatabaseQueue {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let escaped = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else {
            throw StoreError.cannotOpen(path: path, reason: "the path cannot be written as an SQLite URI")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = label + " (read-only)"
        let database = try DatabaseQueue(path: "file:" + escaped + "?immutable=1", configuration: configuration)
        let usable = try database.read { db in
            try (!quickCheck || String.fetchAll(db, sql: "PRAGMA quick_check(3)") == ["ok"]) && readable(db)
        }
        guard usable else { throw StoreError.cannotOpen(path: path, reason: "read-only, and not a complete, healthy isobar store") }
        return database
    }
}
