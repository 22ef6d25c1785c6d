import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

/// `isobar persist` on a bad disk, as a real process (issue 27, item 7): a read-only data
/// directory and a full file system at start. Each runs in a mount namespace of its own
/// (`unshare --mount`, as FavoritesReadOnlyTests), so the mount exists only inside and ends with
/// the process, even when the test fails; the test reaches inside through `/proc/PID/root`.
@Suite(.serialized, .processSlot) struct PersistBadDiskTests {
    static let unshare = geteuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]

    static func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-disk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Was: exit 1 at every start (a restart loop under `up`), nothing replayed. Now: the stored
    /// snapshot is replayed, one error line says nothing new will be stored, exit 0 at the end.
    @Test func aReadOnlyDataDirectoryIsServedNotARestartLoop() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let feed = try CrashFeed()
        let first = try await ProcessHarness.isobar(["persist", "--data-dir", directory])
        try first.write(String(decoding: feed.snapshot(step: 0), as: UTF8.self))
        first.closeStdin()
        #expect(await first.waitForExit(timeout: .seconds(30)) == .exited(0), "\(first.stderrText)")

        let script = #"mount --bind -o ro "$1" "$1" && exec "$2" persist --data-dir "$1""#
        let persist = try await ProcessHarness("unshare", Self.unshare + ["sh", "-c", script, "sh", directory, ProcessHarness.isobarBinary])
        persist.closeStdin()
        #expect(await persist.waitForExit(timeout: .seconds(30)) == .exited(0), "\(persist.stderrText)")
        let lines = persist.allStdoutLines
        #expect(lines.first?.hasPrefix(#"{"type":"error","stage":"persist","message":"the database \#(directory)/isobar.sqlite can only be read ("#) == true,
                "\(lines.first ?? "")")
        #expect(lines.first?.contains("nothing new will be stored") == true)
        let expected = String(decoding: feed.snapshot(step: 0), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == expected.count + 1)
        #expect(Array(lines.dropFirst().dropLast()) == Array(expected.dropLast()))
        #expect(lines.last?.contains(#""source":"store""#) == true)
    }

    /// Was: exit 1 at every start, its message saying "the stage keeps running". Now: it runs,
    /// says what it does, holds what arrives, and stores it once space returns.
    @Test func aFullDiskAtStartIsHeldThenStoredWhenSpaceReturns() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = #"mount -t tmpfs -o size=512k tmpfs "$1" && (head -c 2000000 /dev/zero > "$1/filler" 2>/dev/null; exec "$2" persist --data-dir "$1")"#
        let persist = try await ProcessHarness("unshare", Self.unshare + ["sh", "-c", script, "sh", directory, ProcessHarness.isobarBinary])
        let said = await persist.waitForStderr(containing: "cannot be opened for writing", timeout: .seconds(30))
        #expect(said?.contains("is full: the latest snapshot of each day is kept in memory and stored when space returns") == true, "\(persist.stderrText)")
        #expect(!persist.stderrText.contains("keeps running"))

        let feed = try CrashFeed()
        try persist.write(String(decoding: feed.snapshot(step: 0), as: UTF8.self))
        #expect(await persist.waitForStderr(containing: "snapshot not stored now; held in memory and served", timeout: .seconds(30)) != nil)
        // Space returns (the filler inside the process's own mount namespace goes).
        let inside = "/proc/\(persist.pid)/root\(directory)"
        try FileManager.default.removeItem(atPath: inside + "/filler")
        try persist.write(String(decoding: feed.snapshot(step: 1), as: UTF8.self))
        #expect(await persist.waitForStderr(containing: "stored a snapshot held in memory", timeout: .seconds(30)) != nil, "\(persist.stderrText)")
        // A copy (with its log) to read: SQLite resolves /proc/PID/root back to this namespace.
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: inside + "/isobar.sqlite" + suffix, toPath: directory + "/copy.sqlite" + suffix)
        }
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [directory + "/copy.sqlite", "SELECT day, count FROM snapshots ORDER BY day;"]
        let output = Pipe()
        let errors = Pipe()
        sqlite.standardOutput = output
        sqlite.standardError = errors
        try sqlite.run()
        let rows = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        sqlite.waitUntilExit()
        #expect(rows == "today|905\ntomorrow|905\n", "\(problem)")
        persist.closeStdin()
        #expect(await persist.waitForExit(timeout: .seconds(30)) == .exited(0), "\(persist.stderrText)")
        if await persist.waitForExit(timeout: .milliseconds(1)) == nil { persist.signal(SIGKILL) }
    }
}
