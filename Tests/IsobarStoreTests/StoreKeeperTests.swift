#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarStore
import Testing

/// The store on a bad disk (issue 27, item 7), on real SQLite files: a file truncated or
/// overwritten under a running persist, a damaged file at open, a read-only file system, a full
/// one. Each fault is detected, said clearly, and persist goes on serving the newest snapshot of
/// each day; nothing is lost that it held.
@Suite(.serialized) struct StoreKeeperTests {
    typealias Support = StoreTestSupport

    static let now = 1_795_000_000.0  // 2026-11-18T...Z

    static func snapshot(_ day: Day, step: Int) throws -> StoredSnapshot {
        let stations = Support.variant(try Support.fixture(day), step: step)
        return StoredSnapshot(day: day, id: "\(day.rawValue)-\(step)", fetchedAt: now + Double(step), storedAt: now + Double(step),
                              stations: stations)
    }

    /// Files in `dir` whose names start with `prefix`, sorted.
    static func files(_ dir: String, startingWith prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// Checkpoints `path`'s log into the file from another connection (the sqlite3 CLI).
    static func checkpoint(_ path: String) throws {
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, "PRAGMA wal_checkpoint(TRUNCATE);"]
        sqlite.standardOutput = FileHandle.nullDevice
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)
    }

    /// What a restarted persist would read from `path`.
    static func reopened(_ path: String) throws -> [Day: String] {
        let store = try SnapshotStore(path: path)
        defer { try? store.close() }
        var ids: [Day: String] = [:]
        for day in Day.allCases { ids[day] = try store.latest(day: day)?.id }
        return ids
    }

    @Test func truncatedToZeroWhileRunningIsDetectedMovedAsideAndRefilledFromMemory() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/isobar.sqlite"
            var keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            #expect(keeper.save(try Self.snapshot(.today, step: 1), now: Self.now) == .stored(pruned: 0))
            #expect(keeper.save(try Self.snapshot(.tomorrow, step: 1), now: Self.now) == .stored(pruned: 0))
            #expect(keeper.takeReports() == [])
            // As after a while of running: the log checkpointed into the file, so the file alone
            // holds the data (another connection may checkpoint a WAL database at any time).
            try Self.checkpoint(path)
            #expect(truncate(path, 0) == 0)

            #expect(keeper.save(try Self.snapshot(.today, step: 2), now: Self.now) != nil)
            let reports = keeper.takeReports()
            #expect(reports.count == 1)
            let aside = "isobar.sqlite.corrupt-" + Quarantined.stamp
            #expect(reports.first == "the database \(path) was damaged while persist ran (it was truncated to 0 bytes): moved aside "
                + "to \(dir)/\(aside); a fresh store now holds the latest snapshot of each day, from memory")
            #expect(Self.files(dir, startingWith: "isobar.sqlite.corrupt-").first == aside)
            #expect(keeper.mode == .writable)
            #expect(keeper.latest(day: .today)?.id == "today-2")
            try keeper.store.close()
            // A restart reads both days: nothing persist held was lost.
            #expect(try Self.reopened(path) == [.today: "today-2", .tomorrow: "tomorrow-1"])
        }
    }

    @Test func overwrittenWhileRunningIsDetected() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/isobar.sqlite"
            var keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            keeper.save(try Self.snapshot(.today, step: 1), now: Self.now)
            // Random bytes over the start of the file, its length kept (dd conv=notrunc).
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }))
            try handle.close()

            keeper.save(try Self.snapshot(.tomorrow, step: 1), now: Self.now)
            let reports = keeper.takeReports()
            #expect(reports.count == 1)
            #expect(reports.first?.contains("(its first bytes are no longer an SQLite header (overwritten))") == true, "\(reports)")
            #expect(Self.files(dir, startingWith: "isobar.sqlite.corrupt-").count == 1)
            try keeper.store.close()
            #expect(try Self.reopened(path) == [.today: "today-1", .tomorrow: "tomorrow-1"])
        }
    }

    /// The stage on top: random bytes over the file while persist runs, then a restarted filter's
    /// `resync` (the feed offline). The fault is one `error` line; the replay still carries both
    /// days, so the filter's maps are not left empty.
    @Test func aStageWhoseFileIsOverwrittenStillAnswersAResyncWithBothDays() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/isobar.sqlite"
            let keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            var stage = try PersistStage(keeper: keeper, logger: Support.quietLogger, clock: { Self.now + 60 })
            let today = try Self.snapshot(.today, step: 1)
            let tomorrow = try Self.snapshot(.tomorrow, step: 1)
            #expect(Support.run(&stage, Support.snapshotText(.today, today.stations, fetchedAt: today.fetchedAt, id: today.id)) == [])
            try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
            let stored = Support.run(&stage, Support.snapshotText(.tomorrow, tomorrow.stations, fetchedAt: tomorrow.fetchedAt, id: tomorrow.id))
            #expect(stored.count == 1)
            #expect(stored.first?.hasPrefix(#"{"type":"error","stage":"persist","message":"the database \#(path) was damaged while persist ran ("#) == true)

            let replay = Support.run(&stage, #"{"type":"resync","reason":"filter started"}"#)
            let expected = Self.writer { writer in
                today.write(now: Self.now + 60, into: &writer)
                tomorrow.write(now: Self.now + 60, into: &writer)
            }
            #expect(replay == Support.lines(expected))
            try stage.store.close()
            #expect(try Self.reopened(path) == [.today: "today-1", .tomorrow: "tomorrow-1"])
        }
    }

    /// Garbage at open (random bytes, as after a disk fault): the file is moved aside untouched,
    /// with its timestamp, and a fresh store opens; a restart loop is gone.
    @Test func aGarbageFileAtOpenIsMovedAsideAndAFreshStoreOpens() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/isobar.sqlite"
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
            try garbage.write(to: URL(fileURLWithPath: path))
            var keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            let aside = dir + "/isobar.sqlite.corrupt-" + Quarantined.stamp
            #expect(keeper.takeReports() == ["the database \(path) is damaged (file is not a database): moved aside to \(aside) "
                + "(salvage it with `sqlite3 \(aside) .recover`); a fresh, empty store was created"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == garbage)
            #expect(keeper.mode == .writable)
            #expect(keeper.save(try Self.snapshot(.today, step: 1), now: Self.now) == .stored(pruned: 0))
        }
    }

    /// Damage that spares the snapshots (here a wrong free-page count in the header, which
    /// `quick_check` reports): the file is moved aside and the fresh store starts with what still
    /// reads whole, so a restart with the feed offline does not begin empty.
    @Test func whatStillReadsWholeIsSalvagedIntoTheFreshStore() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/isobar.sqlite"
            do {
                let store = try SnapshotStore(path: path, keep: 1)
                for step in 1...3 {
                    for day in Day.allCases {
                        let snapshot = try Self.snapshot(day, step: step)
                        try store.save(day: day, id: snapshot.id, stations: snapshot.stations, fetchedAt: snapshot.fetchedAt)
                    }
                }
                try store.close()  // checkpoints: the pruned snapshots' pages are now free pages
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[39] = bytes[39] &+ 5
            try bytes.write(to: URL(fileURLWithPath: path))

            var keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            let reports = keeper.takeReports()
            #expect(reports.count == 1)
            #expect(reports.first?.hasPrefix("the database \(path) is damaged (quick_check: ") == true, "\(reports)")
            #expect(reports.first?.hasSuffix("a fresh store was created with the latest snapshot of each day that still reads whole "
                + "(today-3, 181 stations; tomorrow-3, 181 stations)") == true, "\(reports)")
            #expect(keeper.latest(day: .today)?.stations == (try Self.snapshot(.today, step: 3)).stations)
            try keeper.store.close()
            #expect(try Self.reopened(path) == [.today: "today-3", .tomorrow: "tomorrow-3"])
        }
    }

    /// A healthy run never moves anything aside (the file checks see no fault in ordinary writes,
    /// WAL checkpoints and pruning included).
    @Test func ordinaryWritesAreNeverTakenForDamage() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/isobar.sqlite"
            var keeper = try StoreKeeper(path: path, keep: 2, logger: Support.quietLogger, now: Self.now)
            for step in 1...8 {
                for day in Day.allCases { #expect(keeper.save(try Self.snapshot(day, step: step), now: Self.now) != nil) }
                #expect(keeper.refresh(day: .today, id: "today-\(step)", fetchedAt: Self.now + Double(step) + 0.5, now: Self.now) == true)
            }
            #expect(keeper.takeReports() == [])
            #expect(Self.files(dir, startingWith: "isobar.sqlite.corrupt").isEmpty)
        }
    }

    /// A read-only file system (or file) holding a store: served read-only, not a restart loop.
    @Test(.enabled(if: SmallFileSystem.available, "needs root to mount a tmpfs"))
    func aReadOnlyFileSystemIsServedReadOnly() throws {
        try SmallFileSystem.with(kilobytes: 2048) { dir in
            let path = dir + "/isobar.sqlite"
            do {
                var writer = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
                writer.save(try Self.snapshot(.today, step: 1), now: Self.now)
                try writer.store.close()
            }
            try SmallFileSystem.remountReadOnly(dir)
            let keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            #expect(keeper.mode == .readOnly)
            // An offline start serves what the file holds: the error line, then the replay.
            var stage = try PersistStage(keeper: keeper, logger: Support.quietLogger, clock: { Self.now + 60 })
            let lines = Support.replay(&stage)
            let today = try Self.snapshot(.today, step: 1)
            let reason = "unable to open database file"  // SQLite's words for EROFS
            #expect(lines.first == #"{"type":"error","stage":"persist","message":"the database \#(path) can only be read (\#(reason)): "#
                + #"its snapshots are served, and nothing new will be stored until it is writable and persist restarts "#
                + #"(the latest arrival of each day is served from memory)","excerpt":"","code":"invalid"}"#)
            #expect(Array(lines.dropFirst()) == Support.lines(Self.writer { today.write(now: Self.now + 60, into: &$0) }))
            // An arrival is served from memory, not stored, and not reported again.
            #expect(Support.run(&stage, Support.snapshotText(.today, try Self.snapshot(.today, step: 2).stations, fetchedAt: Self.now + 2,
                                                            id: "today-2")).isEmpty)
            #expect(stage.keeper.latest(day: .today)?.id == "today-2")
            #expect(try stage.keeper.storedSnapshots(day: .today).map(\.id) == ["today-1"])
        }
    }

    static func writer(_ body: (inout JSONWriter) -> Void) -> JSONWriter {
        var writer = JSONWriter()
        body(&writer)
        return writer
    }

    /// A disk that fills while persist runs: the snapshot waits in memory and is stored when space
    /// returns, at the next line after the backoff.
    @Test(.enabled(if: SmallFileSystem.available, "needs root to mount a tmpfs"))
    func aSnapshotThatArrivedWhileTheDiskWasFullIsStoredWhenSpaceReturns() throws {
        try SmallFileSystem.with(kilobytes: 1024) { dir in
            let path = dir + "/isobar.sqlite"
            var keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            keeper.save(try Self.snapshot(.today, step: 1), now: Self.now)
            SmallFileSystem.fill(dir)
            #expect(keeper.save(try Self.snapshot(.today, step: 2), now: Self.now) == nil)
            #expect(keeper.save(try Self.snapshot(.tomorrow, step: 2), now: Self.now) == nil)
            let reports = keeper.takeReports()
            #expect(reports == ["storing snapshot today-2 (today) failed: the disk holding \(path) is full: the latest snapshot of "
                + "each day is kept in memory and stored when space returns. Free some space."])
            #expect(keeper.unsavedDays == [.today, .tomorrow])
            #expect(keeper.latest(day: .today)?.id == "today-2")  // served meanwhile

            keeper.retry(now: Self.now + 1)  // still full: nothing changes, no new report
            #expect(keeper.unsavedDays == [.today, .tomorrow])
            SmallFileSystem.free(dir)
            keeper.retry(now: Self.now + 1.5)  // inside the backoff (2 s after the last try): not yet
            #expect(keeper.unsavedDays == [.today, .tomorrow])
            keeper.retry(now: Self.now + 3)
            #expect(keeper.unsavedDays == [])
            #expect(keeper.takeReports() == [])
            try keeper.store.close()
            #expect(try Self.reopened(path) == [.today: "today-2", .tomorrow: "tomorrow-2"])
        }
    }

    /// A disk full before persist starts: no exit, what the file holds is served, and the store
    /// opens for writing once space returns (here: at the next arrival).
    @Test(.enabled(if: SmallFileSystem.available, "needs root to mount a tmpfs"))
    func aFullDiskAtStartIsRetriedNotFatal() throws {
        try SmallFileSystem.with(kilobytes: 1024) { dir in
            let path = dir + "/isobar.sqlite"
            SmallFileSystem.fill(dir)
            var keeper = try StoreKeeper(path: path, logger: Support.quietLogger, now: Self.now)
            #expect(keeper.mode == .retrying)
            let reports = keeper.takeReports()
            #expect(reports.count == 1)
            #expect(reports.first?.hasPrefix("the database \(path) cannot be opened for writing (") == true, "\(reports)")
            #expect(reports.first?.hasSuffix("Nothing stored can be read either. The latest snapshot of each day that arrives is kept "
                + "in memory, served, and stored once the file can be opened again (tried at each arrival)") == true, "\(reports)")
            #expect(keeper.save(try Self.snapshot(.today, step: 1), now: Self.now) == nil)
            #expect(keeper.latest(day: .today)?.id == "today-1")
            SmallFileSystem.free(dir)
            #expect(keeper.save(try Self.snapshot(.tomorrow, step: 1), now: Self.now + 1) == .stored(pruned: 0))
            #expect(keeper.mode == .writable)
            #expect(keeper.unsavedDays == [])
            try keeper.store.close()
            #expect(try Self.reopened(path) == [.today: "today-1", .tomorrow: "tomorrow-1"])
        }
    }

    /// The UTC stamp of `StoreKeeperTests.now` as quarantine names carry it.
    enum Quarantined {
        static let stamp: String = {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            return formatter.string(from: Date(timeIntervalSince1970: StoreKeeperTests.now))
        }()
    }
}
