import IsobarCore
import Logging

/// The persister's hold on its snapshot store across faults of the disk under it, so that persist
/// keeps serving what it has instead of stopping, looping on restarts, or losing data silently.
///
/// - **A damaged file** (at open: not SQLite, or `quick_check` fails; while running: truncated,
///   overwritten or replaced under the store (`StoreFile`), or SQLite reports it corrupt) is moved
///   aside with a timestamp (`Quarantine`), a fresh store takes its place, and the latest snapshot
///   of each day held in memory is stored into it again.
/// - **A file or file system that can only be read** is served read-only: its snapshots are
///   replayed, nothing new is stored (said once, at open), and newer arrivals are held in memory
///   and replayed from there.
/// - **A full disk** (at open or while writing), or any other write that fails and may pass: the
///   latest unsaved snapshot of each day is held in memory and stored when a write works again.
///   A write is tried at every snapshot that arrives, and at any other line after a backoff
///   (1 s, doubling to 60 s): no timer, so an idle persist costs nothing.
///
/// The newest snapshot of each day (`SnapshotRank`) is always in memory, stored or not: replays
/// come from there. (The cost: persist holds the latest snapshot of each day, as the filter does.)
///
/// Problems are logged when they happen and queued as messages for the bus (`takeReports`); a
/// lasting condition is reported when it starts, and its end is logged.
public struct StoreKeeper: Sendable {
    /// Whether what arrives is written to the file now.
    public enum Mode: Sendable, Equatable {
        /// Written as it arrives.
        case writable
        /// The file can only be read, for the rest of the run.
        case readOnly
        /// The file could not be opened for writing (a full disk at start): held in memory,
        /// opening retried.
        case retrying
    }

    enum State: Sendable {
        /// `file`: the file as it was after the last write (nil: an in-memory store, not checked).
        case writable(SnapshotStore, file: StoreFile?)
        case readOnly(SnapshotStore, reason: StoreError)
        case retrying(SnapshotStore, reason: StoreError)
    }

    public let path: String
    public let keep: Int
    var state: State
    let logger: Logger
    /// The newest snapshot of each day this process knows, stored or not.
    var latest: [Day: StoredSnapshot] = [:]
    /// The latest snapshot of each day that arrived but is not in the file yet.
    var unsaved: [Day: StoredSnapshot] = [:]
    /// The write failure being reported (a full disk), until a write works again.
    var failing: StoreError?
    var nextRetry = -Double.infinity
    var backoff = StoreKeeper.firstBackoff
    var reports: [String] = []

    static let firstBackoff = 1.0
    static let longestBackoff = 60.0

    /// Opens the store at `path`, creating its directory, and recovers as described above. Throws
    /// only what no retry can mend: a data directory that cannot be created, a foreign SQLite file,
    /// a path that can be neither written nor read (a directory in the way), `keep` below 1.
    public init(path: String, keep: Int = 10, logger: Logger, now: Double) throws(StoreError) {
        guard keep >= 1 else { throw .invalidArgument("keep must be at least 1 snapshot per day, not \(keep)") }
        self.path = path
        self.keep = keep
        self.logger = logger
        var reports: [String] = []
        state = try Self.open(path, keep: keep, now: now, logger: logger, reports: &reports)
        self.reports = reports
        loadLatest()
    }

    /// Keeps a store that is already open for writing (tests, and callers that opened it).
    public init(store: SnapshotStore, logger: Logger) {
        path = store.path
        keep = store.keep
        self.logger = logger
        state = .writable(store, file: try? StoreFile.inspect(store.path).get())
        loadLatest()
    }

    /// The store being read (and written, in `writable` mode).
    public var store: SnapshotStore {
        switch state {
        case .writable(let store, _), .readOnly(let store, _), .retrying(let store, _): return store
        }
    }

    public var mode: Mode {
        switch state {
        case .writable: return .writable
        case .readOnly: return .readOnly
        case .retrying: return .retrying
        }
    }

    /// True when `retry` has something to do (held snapshots, or a file to open again): checked
    /// per line before reading the clock.
    public var needsRetry: Bool {
        switch state {
        case .readOnly: return false
        case .retrying: return true
        case .writable: return !unsaved.isEmpty
        }
    }

    /// Days whose latest arrival is not in the file yet.
    public var unsavedDays: [Day] { Day.allCases.filter { unsaved[$0] != nil } }

    /// The newest snapshot of `day` known to this process, stored or not.
    public func latest(day: Day) -> StoredSnapshot? { latest[day] }

    /// The snapshots the store holds for `day`, latest first.
    public func storedSnapshots(day: Day) throws(StoreError) -> [(id: String, fetchedAt: Double)] {
        try store.snapshots(day: day)
    }

    /// The problems since the last call, each a message for an `error` line (already logged).
    public mutating func takeReports() -> [String] {
        defer { reports = [] }
        return reports
    }

    // MARK: - Writing

    /// Stores a complete snapshot. Returns nil when it could not be stored now: it is then held
    /// in memory (the latest per day) and stored by a later write, unless the store is read-only.
    @discardableResult
    public mutating func save(_ snapshot: StoredSnapshot, now: Double) -> SaveOutcome? {
        if latest[snapshot.day].map({ Self.rank($0) < Self.rank(snapshot) }) ?? true { latest[snapshot.day] = snapshot }
        let outcome = write(now: now, "storing snapshot \(snapshot.id) (\(snapshot.day.rawValue))") { store throws(StoreError) in
            try store.save(day: snapshot.day, id: snapshot.id, stations: snapshot.stations, fetchedAt: snapshot.fetchedAt,
                           storedAt: snapshot.storedAt)
        }
        if outcome == nil {
            hold(snapshot)
        } else {
            if unsaved[snapshot.day].map({ Self.rank($0) <= Self.rank(snapshot) }) == true { unsaved[snapshot.day] = nil }
            flushUnsaved(now: now)
        }
        return outcome
    }

    /// The same content fetched again: its fetch time moves forward, in memory and in the file.
    /// Returns nil when the file could not be written now (memory still moves forward).
    @discardableResult
    public mutating func refresh(day: Day, id: String, fetchedAt: Double, now: Double) -> Bool? {
        for keyPath in [\Self.latest, \Self.unsaved] {
            if var held = self[keyPath: keyPath][day], held.id == id, held.fetchedAt < fetchedAt {
                held.fetchedAt = fetchedAt
                held.storedAt = now
                self[keyPath: keyPath][day] = held
            }
        }
        let outcome = write(now: now, "refreshing snapshot \(id) (\(day.rawValue))") { store throws(StoreError) in
            try store.refresh(day: day, id: id, fetchedAt: fetchedAt, storedAt: now) ? .refreshed : .alreadyStored
        }
        // An older stored snapshot fetched again (A, B, then A) becomes the newest: read it back.
        if outcome == .refreshed, latest[day]?.id != id,
           latest[day].map({ Self.rank($0) < SnapshotRank(fetchedAt: fetchedAt, snapshot: id) }) ?? true,
           let read = try? store.latest(day: day), read.id == id {
            latest[day] = read
        }
        return outcome.map { $0 == .refreshed }
    }

    /// Stores what is held unsaved, reopening the file first when it could not be opened: at most
    /// once per backoff interval (call it for every line; it costs nothing in between).
    public mutating func retry(now: Double) {
        guard now >= nextRetry else { return }
        switch state {
        case .readOnly: return
        case .writable: guard !unsaved.isEmpty else { return }
        case .retrying: break
        }
        if case .retrying = state { reopen() }
        flushUnsaved(now: now)
        if case .writable = state, unsaved.isEmpty {
            backoff = Self.firstBackoff
            nextRetry = -.infinity
        } else {
            nextRetry = now + backoff
            backoff = min(Self.longestBackoff, backoff * 2)
        }
    }

    static func rank(_ snapshot: StoredSnapshot) -> SnapshotRank {
        SnapshotRank(fetchedAt: snapshot.fetchedAt, snapshot: snapshot.id)
    }

    /// Keeps `snapshot` for a later write when it is the latest unsaved one of its day.
    private mutating func hold(_ snapshot: StoredSnapshot) {
        if case .readOnly = state { return }
        if unsaved[snapshot.day].map({ Self.rank($0) < Self.rank(snapshot) }) ?? true { unsaved[snapshot.day] = snapshot }
    }

    /// Writes every held snapshot it can; each one that is stored leaves `unsaved`.
    mutating func flushUnsaved(now: Double) {
        for day in Day.allCases {
            guard let snapshot = unsaved[day] else { continue }
            let outcome = write(now: now, "storing the held snapshot \(snapshot.id) (\(day.rawValue))", recovering: false) { store throws(StoreError) in
                try store.save(day: day, id: snapshot.id, stations: snapshot.stations, fetchedAt: snapshot.fetchedAt,
                               storedAt: snapshot.storedAt)
            }
            guard outcome != nil else { return }
            unsaved[day] = nil
            logger.info("stored a snapshot held in memory while the store could not be written", metadata: [
                "day": "\(day.rawValue)", "snapshot": "\(snapshot.id)", "stations": "\(snapshot.stations.count)",
            ])
        }
    }

    private mutating func loadLatest() {
        for day in Day.allCases {
            do {
                latest[day] = try store.latest(day: day)
            } catch {
                report("cannot read the latest \(day.rawValue) snapshot: \(error)")
            }
        }
    }

    mutating func report(_ message: String) {
        logger.error("\(message)")
        reports.append(message)
    }
}
