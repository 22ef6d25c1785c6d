import GRDB

/// Why the snapshot store could not open, read or write its database, in words that say what to do.
///
/// `isFatal` separates failures that make the store unusable for the rest of the run (a damaged
/// file) from ones that may pass (a full disk, a lock held too long). Persist's `StoreKeeper`
/// recovers from both kinds when writing (moves a damaged file aside, holds snapshots on a full
/// disk); the persist stage stops only on a fatal failure the keeper does not handle.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The data directory does not exist and could not be created.
    case cannotCreateDirectory(path: String, reason: String)
    /// The database file could not be opened or created for writing (permissions, a directory
    /// in the way, a read-only file system).
    case cannotOpen(path: String, reason: String)
    /// The file exists but is not an SQLite database, or SQLite reports it damaged.
    case corrupt(path: String, detail: String)
    /// The file is a database, but not one this program can use (a foreign schema).
    case incompatible(path: String, detail: String)
    /// The disk or file system is full; the snapshot was not stored.
    case diskFull(path: String)
    /// The file could be opened only for reading (a read-only file or file system): what it holds
    /// is read, nothing can be written.
    case readOnly(path: String, reason: String)
    /// Any other SQLite failure during `operation`.
    case failed(operation: String, path: String, detail: String)
    /// A caller asked for something the store cannot do (e.g. keep 0 snapshots).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let reason):
            return "cannot create the data directory \(path): \(reason). Choose a writable location with --data-dir."
        case .cannotOpen(let path, let reason):
            return "cannot open the database \(path) for writing: \(reason). Check that the path is a writable file "
                + "(not a directory) on a writable file system, or choose another location with --data-dir."
        case .readOnly(let path, let reason):
            return "the database \(path) can only be read (\(reason)): what it holds is used, changes cannot be stored. "
                + "Make the file and its directory writable, or choose another location with --data-dir."
        case .corrupt(let path, let detail):
            return "the database \(path) is not a valid isobar store or is damaged (\(detail)). isobar will not "
                + "overwrite it: move it away (mv \(path) \(path).corrupt, with any -wal and -shm file beside it) and "
                + "restart to begin with an empty store, or salvage it with `sqlite3 \(path) .recover`."
        case .incompatible(let path, let detail):
            return "the database \(path) is an SQLite file but not an isobar store (\(detail)). Point --data-dir at "
                + "another directory, or move the file away."
        case .diskFull(let path):
            return "the disk holding \(path) is full: the latest snapshot of each day is kept in memory and stored when "
                + "space returns. Free some space."
        case .failed(let operation, let path, let detail):
            return "\(operation) failed on \(path): \(detail)"
        case .invalidArgument(let message):
            return message
        }
    }

    /// True when the store cannot be trusted for the rest of the run.
    public var isFatal: Bool {
        switch self {
        case .corrupt, .incompatible, .cannotOpen, .cannotCreateDirectory, .readOnly: return true
        case .diskFull, .failed, .invalidArgument: return false
        }
    }

    /// Classifies an error thrown by GRDB/SQLite during `operation` on `path`.
    static func from(_ error: any Error, operation: String, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else {
            return .failed(operation: operation, path: path, detail: "\(error)")
        }
        let detail = error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT:
            return .corrupt(path: path, detail: detail)
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return .cannotOpen(path: path, reason: detail)
        case .SQLITE_FULL:
            return .diskFull(path: path)
        default:
            return .failed(operation: operation, path: path, detail: detail)
        }
    }
}
