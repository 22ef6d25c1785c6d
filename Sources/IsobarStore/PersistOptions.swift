import IsobarCore

/// Settings of `isobar persist`.
public struct PersistOptions: Sendable, Equatable {
    public static let defaultDataDirectory = "./data"
    public static let databaseFileName = "isobar.sqlite"
    /// The filter's favorites file in the same directory (`isobar up` passes it to `filter --favorites`).
    public static let favoritesFileName = "favorites.sqlite"

    /// The SQLite file; its directory is created when missing.
    public var databasePath: String
    /// Complete snapshots kept per day (at least 1).
    public var keep: Int
    /// Republish the latest stored snapshot of each day before reading input, so a pipeline that
    /// starts without connectivity still shows the last known data.
    public var replayOnStart: Bool
    /// Bare resyncs are answered at most once per this many seconds (`ResyncInterval`).
    public var resyncInterval = ResyncInterval.defaultSeconds
    /// Which complete snapshots are stored (future `fetchedAt`, shrunk): the filter's values.
    public var snapshotPolicy = SnapshotPolicy()

    /// The store in `dataDirectory` (default `./data/isobar.sqlite`).
    public init(dataDirectory: String = PersistOptions.defaultDataDirectory, keep: Int = 10, replayOnStart: Bool = true) {
        self.init(databasePath: Self.databasePath(inDataDirectory: dataDirectory), keep: keep, replayOnStart: replayOnStart)
    }

    public init(databasePath: String, keep: Int = 10, replayOnStart: Bool = true) {
        self.databasePath = databasePath
        self.keep = keep
        self.replayOnStart = replayOnStart
    }

    public static func databasePath(inDataDirectory directory: String) -> String {
        let trimmed = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return (trimmed.isEmpty ? "." : trimmed) + "/" + databaseFileName
    }

    /// What `--help` should say about the stage's input and output, with an example line of each.
    /// Explanations stay under 80 columns; each example is one unbroken line of its own.
    public static let helpDiscussion = """
        Stores every complete snapshot in SQLite (WAL, one transaction each,
        the last --keep per day) and republishes the latest one of each day
        on start and on a resync request, marked "source":"store" with its age.

        Input (stdin, NDJSON):
          station: one member of a snapshot (seq 0..<count)
        {"type":"station","day":"today","snapshot":"today-3f2a","seq":0,"id":"K1D3","name":"PLATTE","latitude":43.40332,"longitude":-98.82952,"temperature":46.4,"windSpeed":6.9,"windDirection":270,"precipitation":0}
          snapshot: the end marker; only a complete snapshot is stored
        {"type":"snapshot","day":"today","snapshot":"today-3f2a","count":181,"source":"feed","fetchedAt":1718000000,"ageSeconds":0}
          resync: republish the latest snapshot of each day (one with a
          "client" is for the filter and is ignored)
        {"type":"resync","reason":"filter started"}
          Any other type passes through unchanged.

        Output (stdout, NDJSON):
          the replayed snapshot's station lines, then its end marker:
        {"type":"snapshot","day":"today","snapshot":"today-3f2a","count":181,"source":"store","fetchedAt":1718000000,"ageSeconds":3600}
          error: a bad line, or a snapshot that was not stored
        {"type":"error","stage":"persist","message":"snapshot today-3f2a (today) is incomplete: 180 of 181 stations arrived; not stored","excerpt":"...","code":"invalid"}

        A damaged database file (not SQLite, failing quick_check, or
        truncated or overwritten while persist runs) is moved aside as
        FILE.corrupt-YYYYMMDDTHHMMSSZ, never overwritten, and a fresh store
        gets the latest snapshot of each day from memory. A read-only file
        is served read-only (nothing new stored). On a full disk the latest
        snapshot of each day waits in memory and is stored when space
        returns. Exit 1: a location that can be neither written nor read,
        or a foreign SQLite file; bad options exit 2.
        """
}
