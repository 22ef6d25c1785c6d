import GRDB

/// The store's schema, as GRDB migrations (append new ones; never edit a shipped one).
///
/// Stations are kept one row each rather than as an opaque blob per snapshot: anyone can read the
/// store with `sqlite3` or from another language, unknown values are plain SQL NULLs, and a
/// snapshot's completeness is checkable in SQL (its `count` equals its number of station rows),
/// which is exactly what the crash tests assert. The cost (one insert per station, in one
/// transaction) is small next to the minute between feed snapshots.
extension SnapshotStore {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: snapshots and stations") { db in
            try db.execute(sql: """
                CREATE TABLE snapshots (
                    day TEXT NOT NULL,
                    id TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    fetchedAt REAL NOT NULL,
                    storedAt REAL NOT NULL,
                    PRIMARY KEY (day, id)
                );
                CREATE INDEX snapshots_by_age ON snapshots (day, fetchedAt, storedAt);
                CREATE TABLE stations (
                    snapshot TEXT NOT NULL,
                    day TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    latitude REAL NOT NULL,
                    longitude REAL NOT NULL,
                    temperature REAL,
                    windSpeed REAL,
                    windDirection REAL,
                    precipitation REAL,
                    PRIMARY KEY (day, snapshot, seq),
                    FOREIGN KEY (day, snapshot) REFERENCES snapshots (day, id) ON DELETE CASCADE
                ) WITHOUT ROWID;
                """)
        }
        // The fuller station model (issue 14): the optional fields as one JSON object per
        // station, NULL for a station without any (every onX station), so a v1 file keeps working
        // and its snapshots replay unchanged.
        migrator.registerMigration("v2: station details") { db in
            try db.execute(sql: "ALTER TABLE stations ADD COLUMN details TEXT")
        }
        return migrator
    }()
}
