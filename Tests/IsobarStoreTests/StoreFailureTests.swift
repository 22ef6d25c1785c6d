#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarStore
import Testing

/// The strict store: a corrupt file or an unwritable location gives a clear error, never a crash
/// and never an overwritten file (what persist then does is `StoreKeeper`'s, see StoreKeeperTests).
@Suite struct StoreFailureTests {
    typealias Support = StoreTestSupport

    @Test func garbageFileIsRefusedAndLeftUntouched() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/store.sqlite"
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
            try garbage.write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: StoreError.self) { try SnapshotStore(path: path) }
            guard case .corrupt = error else { Issue.record("expected .corrupt, got \(error)"); return }
            #expect(error.description.contains(path))
            #expect(error.description.contains("move it away"))
            #expect(error.isFatal)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    /// A real store whose pages were overwritten in place (a disk fault, a stray write).
    @Test func damagedDatabaseIsRefused() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/store.sqlite"
            do {
                let store = try SnapshotStore(path: path)
                let stations = try Support.fixture(.today)
                try store.save(day: .today, id: "today-1", stations: stations, fetchedAt: 1)
                try store.close()  // checkpoints the WAL into the file
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try #require(bytes.count > 4 * 4096)
            for offset in stride(from: 4096 + 100, to: bytes.count, by: 97) { bytes[offset] = 0xA5 }
            try bytes.write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: StoreError.self) { try SnapshotStore(path: path) }
            guard case .corrupt = error else { Issue.record("expected .corrupt, got \(error)"); return }
            #expect(error.description.contains(path))
        }
    }

    @Test func directoryThatCannotBeCreatedIsReported() throws {
        try Support.withTemporaryDirectory { dir in
            let blocker = dir + "/not-a-directory"
            try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
            // Opening under a regular file fails for root too (chmod would not stop root).
            let error = try #require(throws: StoreError.self) { try SnapshotStore(path: blocker + "/store.sqlite") }
            guard case .cannotOpen = error else { Issue.record("expected .cannotOpen, got \(error)"); return }
            #expect(error.description.contains(blocker + "/store.sqlite"))
            // The runner creates the data directory, so it reports that step, and exits 1 before reading stdin.
            let status = runPersist(PersistOptions(dataDirectory: blocker + "/data"), logger: Support.quietLogger)
            #expect(status == 1)
        }
    }

    @Test func databasePathThatIsADirectoryIsReported() throws {
        try Support.withTemporaryDirectory { dir in
            let error = try #require(throws: StoreError.self) { try SnapshotStore(path: dir) }
            #expect(error == .cannotOpen(path: dir, reason: "it is a directory"))
            #expect(error.description.contains("not a directory"))
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root ignores file permissions; the other unwritable-path tests cover root"))
    func readOnlyDirectoryIsReported() throws {
        try Support.withTemporaryDirectory { dir in
            let locked = dir + "/locked"
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
            chmod(locked, 0o500)
            defer { chmod(locked, 0o700) }
            let error = try #require(throws: StoreError.self) { try SnapshotStore(path: locked + "/store.sqlite") }
            guard case .cannotOpen = error else { Issue.record("expected .cannotOpen, got \(error)"); return }
        }
    }

    /// (A corrupt file no longer stops the runner: it is moved aside, see StoreKeeperTests and
    /// PersistCrashTests/corruptFileIsMovedAside.)
    @Test func runnerRefusesKeepingNoSnapshots() throws {
        try Support.withTemporaryDirectory { dir in
            #expect(runPersist(PersistOptions(dataDirectory: dir, keep: 0), logger: Support.quietLogger) == 2)
        }
    }

    @Test func foreignSQLiteDatabaseIsReportedAsIncompatible() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/other.sqlite"
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            sqlite.arguments = [path, "CREATE TABLE snapshots (x); CREATE TABLE stations (y);"]
            guard (try? sqlite.run()) != nil else { return }  // no sqlite3 CLI: nothing to test with
            sqlite.waitUntilExit()
            let error = try #require(throws: StoreError.self) { try SnapshotStore(path: path) }
            guard case .incompatible = error else { Issue.record("expected .incompatible, got \(error)"); return }
        }
    }

    @Test func databasePathFollowsTheDataDirectory() throws {
        try Support.withTemporaryDirectory { dir in
            let options = PersistOptions(dataDirectory: dir + "/a/b/")
            #expect(options.databasePath == dir + "/a/b/isobar.sqlite")
            #expect(PersistOptions().databasePath == "./data/isobar.sqlite")
        }
    }
}
