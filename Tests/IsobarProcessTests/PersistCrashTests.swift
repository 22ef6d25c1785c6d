#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import Testing
@testable import IsobarTestSupport

/// `isobar persist` killed with SIGKILL at random moments while snapshots stream in: after every
/// kill the file passes `PRAGMA integrity_check` (read by the sqlite3 CLI, an independent reader,
/// opened read-only) and every stored snapshot, in particular the latest of each day, has exactly
/// `count` station rows. A final start with no input replays the latest snapshot of each day.
///
/// Rounds: `ISOBAR_CRASH_ROUNDS` (default 20; the reliability report uses 100).
@Suite("persist process: kill -9, corrupt file, replay after restart", .serialized, .processSlot)
struct PersistCrashTests {
    static var rounds: Int {
        Int(ProcessInfo.processInfo.environment["ISOBAR_CRASH_ROUNDS"] ?? "").map { max(1, $0) } ?? 20
    }

    /// True once the binary is built (`isobar persist` is part of it).
    static let persistIsBuilt: Bool = FileManager.default.isExecutableFile(atPath: ProcessHarness.isobarBinary)

    static let sqlite3: String? = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("kill -9 during writes leaves an intact store with a complete latest snapshot per day",
          .enabled(if: persistIsBuilt, "`isobar persist` is not built yet (run `swift build`; needs the persist subcommand)"),
          .enabled(if: sqlite3 != nil, "the sqlite3 CLI is needed to inspect the store: apt-get install sqlite3"),
          .timeLimit(.minutes(10)))
    func killNineDuringWrites() async throws {
        signal(SIGPIPE, SIG_IGN)  // writing to a killed child must fail with EPIPE, not kill the test
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-crash-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dataDir = root + "/nested/data"  // created by persist on the first start
        let database = dataDir + "/isobar.sqlite"
        let feed = try CrashFeed()

        var progressed = 0
        var storedTotal = 0
        var lastLatest: Double = 0
        var aimed = (committed: 0, notCommitted: 0)
        for round in 0..<Self.rounds {
            let persist = try await ProcessHarness.isobar(["persist", "--data-dir", dataDir])
            let ended: ProcessHarness.Termination?
            if round % 2 == 0 {
                // A random moment while snapshots stream in as fast as persist takes them.
                // (Once the store is open: on a loaded machine a kill 20 ms after the start could
                // land before the file exists, and there would be nothing to check.)
                try #require(await persist.waitForStderr(containing: "store opened", timeout: .seconds(30)) != nil, "\(persist.stderrText)")
                let writer = CrashFeed.Writer(feed: feed, round: round, persist: persist)
                writer.start()
                usleep(UInt32.random(in: 20_000...400_000))
                persist.signal(SIGKILL)
                ended = await persist.waitForExit(timeout: .seconds(10))
                writer.join()
            } else {
                // Aimed at the commit: all stations are parsed (a pass-through mark after them has
                // come back), then the end marker starts the transaction and the kill follows
                // within a few milliseconds, before, during or just after the commit.
                let step = round * 100_000
                let snapshot = feed.snapshotParts(step: step)
                let mark = #"{"type":"crash-test-mark","round":\#(round)}"#
                try persist.write(snapshot.stations + mark + "\n")
                var marked = false
                while !marked, let line = await persist.nextStdoutLine(timeout: .seconds(60)) { marked = line == mark }
                try #require(marked, "round \(round): the pass-through mark never came back\n\(persist.stderrText)")
                try persist.write(snapshot.end)
                if round == 1 {
                    // Round 1 kills only once the snapshot is stored: on a loaded machine every
                    // kill 0-40 ms after the end marker (and every random one) could land before
                    // its commit, and the check that writes happened would fail with correct code.
                    #expect(await persist.waitForStderr(timeout: .seconds(60)) { $0.contains("stored snapshot") && $0.contains("snapshot=\(snapshot.id)") } != nil,
                            "round \(round): persist never stored \(snapshot.id)\n\(persist.stderrText)")
                } else {
                    usleep(UInt32.random(in: 0...40_000))  // storing 900 stations takes ~20-30 ms in a debug build
                }
                persist.signal(SIGKILL)
                ended = await persist.waitForExit(timeout: .seconds(10))
                let stored = try await sqlite(database, "SELECT COUNT(*) FROM snapshots WHERE id = '\(snapshot.id)';")
                if round == 1 {
                    #expect(stored == ["1"], "round \(round): \(snapshot.id) logged as stored but not in the file")
                } else if stored == ["1"] { aimed.committed += 1 } else { aimed.notCommitted += 1 }
            }
            storedTotal += persist.stderrCount(containing: "stored snapshot")  // from its info log; a statistic only
            try #require(ended == .signaled(SIGKILL),
                         "round \(round): persist was not running when killed (\(ended.map(\.description) ?? "still running"))\n\(persist.stderrText)")

            let integrity = try await sqlite(database, "PRAGMA integrity_check;")
            try #require(integrity == ["ok"], "round \(round): integrity_check after kill -9: \(integrity)")
            let rows = try await snapshotRows(database)
            for row in rows {
                #expect(row.count == row.stationRows,
                        "round \(round): snapshot \(row.id) (\(row.day)) has \(row.stationRows) station rows, count \(row.count)")
            }
            for day in Day.allCases {
                let ofDay = rows.filter { $0.day == day.rawValue }
                #expect(ofDay.count <= 10, "round \(round): \(ofDay.count) \(day.rawValue) snapshots kept, keep is 10")
                if let latest = ofDay.first { #expect(latest.count > 0 && latest.count == latest.stationRows) }
            }
            let latest = rows.map(\.fetchedAt).max() ?? 0
            if latest > lastLatest { progressed += 1; lastLatest = latest }
        }
        // Writes did happen between the kills (otherwise the test proved nothing).
        #expect(progressed > 0, "no snapshot was stored in \(Self.rounds) rounds")
        // A kill -9 is never taken for damage: no file was moved aside.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dataDir).filter { $0.contains(".corrupt-") } == [])
        print("persist crash test: \(Self.rounds) kill -9s (half at random while streaming, half aimed at the commit); "
              + "integrity_check ok after each; \(progressed) rounds stored new data, about \(storedTotal) snapshots in all; "
              + "aimed kills (round 1's after its commit not counted): \(aimed.committed) after the commit, \(aimed.notCommitted) before or during it")

        // Launching with no input: the last stored data comes back, marked as from the store.
        let rows = try await snapshotRows(database)
        let replay = try await ProcessHarness.isobar(["persist", "--data-dir", dataDir])
        replay.closeStdin()
        #expect(await replay.waitForExit(timeout: .seconds(30)) == .exited(0), "\(replay.stderrText)")
        var lines: [String] = []
        while let line = await replay.nextStdoutLine(timeout: .seconds(5)) { lines.append(line) }
        var ends: [SnapshotEnd] = []
        for line in lines {
            let object = try JSONObject(parsing: line)
            if object.field("type").flatMap(object.string) == "snapshot" { ends.append(try SnapshotEnd(from: object)) }
        }
        for day in Day.allCases {
            guard let latest = rows.first(where: { $0.day == day.rawValue }) else { continue }
            let end = try #require(ends.first { $0.day == day }, "no \(day.rawValue) replay in:\n\(lines.suffix(3))")
            #expect(end.snapshot == latest.id)
            #expect(end.count == latest.count)
            #expect(end.source == .store)
            #expect(end.fetchedAt == latest.fetchedAt)
        }
        #expect(lines.count == ends.reduce(0) { $0 + $1.count + 1 })
    }

    @Test("a corrupt database file: moved aside with a timestamp, untouched, one error naming both, a fresh store that stores",
          .enabled(if: persistIsBuilt, "`isobar persist` is not built yet (run `swift build`; needs the persist subcommand)"))
    func corruptFileIsMovedAside() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-corrupt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let garbage = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: dir + "/isobar.sqlite"))
        let persist = try await ProcessHarness.isobar(["persist", "--data-dir", dir])
        let feed = try CrashFeed()
        try persist.write(String(decoding: feed.snapshot(step: 0), as: UTF8.self))
        persist.closeStdin()
        #expect(await persist.waitForExit(timeout: .seconds(30)) == .exited(0), "\(persist.stderrText)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("isobar.sqlite.corrupt-") }
        try #require(aside.count == 1, "\(aside)")
        #expect(aside[0].count == "isobar.sqlite.corrupt-20261126T051500Z".count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + aside[0])) == garbage)
        // The error line on stdout (for the bus) and the log both name the file and where it went.
        let first = await persist.nextStdoutLine(timeout: .seconds(5)) ?? ""
        #expect(first.hasPrefix(#"{"type":"error","stage":"persist","message":"the database \#(dir)/isobar.sqlite is damaged (file is not a database): moved aside to \#(dir)/\#(aside[0])"#), "\(first)")
        #expect(persist.stderrText.contains("moved aside to \(dir)/\(aside[0])"))
        #expect(try await sqlite(dir + "/isobar.sqlite", "SELECT COUNT(*) FROM snapshots;") == ["1"])
    }

    @Test("after a restart with no input, persist replays what it stored, as source store",
          .enabled(if: persistIsBuilt, "`isobar persist` is not built yet (run `swift build`; needs the persist subcommand)"))
    func replaysAfterRestart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-replay-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let feed = try CrashFeed()
        let first = try await ProcessHarness.isobar(["persist", "--data-dir", dir])
        let input = String(decoding: feed.snapshot(step: 0) + feed.snapshot(step: 1), as: UTF8.self)
        try first.write(input)
        first.closeStdin()
        #expect(await first.waitForExit(timeout: .seconds(30)) == .exited(0), "\(first.stderrText)")

        let second = try await ProcessHarness.isobar(["persist", "--data-dir", dir])
        second.closeStdin()
        #expect(await second.waitForExit(timeout: .seconds(30)) == .exited(0), "\(second.stderrText)")
        var lines: [String] = []
        while let line = await second.nextStdoutLine(timeout: .seconds(5)) { lines.append(line) }
        // The same lines as published, except the end markers: source store, with their age.
        var expected = input.split(separator: "\n").map(String.init)
        var ends = 0
        for (index, line) in lines.enumerated() where line.contains(#""type":"snapshot""#) {
            let end = try SnapshotEnd(from: JSONObject(parsing: line))
            #expect(end.source == .store)
            #expect(end.ageSeconds > 0)
            let original = try SnapshotEnd(from: JSONObject(parsing: expected[index]))
            #expect(end.snapshot == original.snapshot && end.count == original.count && end.fetchedAt == original.fetchedAt)
            expected[index] = line
            ends += 1
        }
        #expect(ends == 2)
        #expect(lines == expected)
    }

    // MARK: - Inspecting the store

    struct SnapshotRow {
        var day: String
        var id: String
        var count: Int
        var fetchedAt: Double
        var stationRows: Int
    }

    /// Every stored snapshot with its number of station rows, latest first within each day.
    private func snapshotRows(_ database: String) async throws -> [SnapshotRow] {
        try await sqlite(database, """
            SELECT day, id, count, fetchedAt,
                   (SELECT COUNT(*) FROM stations t WHERE t.day = s.day AND t.snapshot = s.id)
            FROM snapshots s ORDER BY day, fetchedAt DESC, storedAt DESC, id DESC;
            """).compactMap { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let count = Int(fields[2]), let fetchedAt = Double(fields[3]),
                  let stationRows = Int(fields[4]) else {
                Issue.record("unexpected sqlite3 output: \(line)")
                return nil
            }
            return SnapshotRow(day: fields[0], id: fields[1], count: count, fetchedAt: fetchedAt, stationRows: stationRows)
        }
    }

    /// Runs `sql` with the sqlite3 CLI on a read-only connection; returns its output lines.
    private func sqlite(_ database: String, _ sql: String) async throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.sqlite3))
        process.arguments = ["-readonly", "-batch", database, sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "sqlite3 failed on \(database): \(errorText)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Snapshots for the crash test: the fixtures, widened to ~900 stations so each transaction takes
/// a while (more kills land inside one), with temperatures shifted per step so every snapshot is new.
struct CrashFeed: Sendable {
    let days: [(Day, [Station])]

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var days: [(Day, [Station])] = []
        for day in Day.allCases {
            let body = try Data(contentsOf: root.appendingPathComponent("Fixtures/\(day.rawValue).json"))
            let stations = try OnXFeed.parse(Array(body)).stations
            let widened = (0..<5).flatMap { copy in
                stations.map { station in
                    var renamed = station
                    renamed.id = copy == 0 ? station.id : "\(station.id)-\(copy)"
                    return renamed
                }
            }
            days.append((day, widened))
        }
        self.days = days
    }

    /// Snapshot number `step` as its station lines and its end marker, with its id.
    func snapshotParts(step: Int) -> (stations: String, end: String, id: String) {
        let text = String(decoding: snapshot(step: step), as: UTF8.self)
        var lines = text.split(separator: "\n")
        let end = lines.removeLast()
        let id = (try? SnapshotEnd(from: JSONObject(parsing: String(end))))?.snapshot ?? ""
        return (lines.joined(separator: "\n") + "\n", end + "\n", id)
    }

    /// Snapshot number `step`: alternating days, with a fetch time that grows with `step`.
    func snapshot(step: Int) -> [UInt8] {
        let (day, base) = days[step % days.count]
        let stations = base.map { station in
            var changed = station
            // Distinct content per step, within the physical range the stages accept (|T| <= 200 °F):
            // up to +50 °F within a round, a thousandth per round (steps start at round x 100,000).
            changed.temperature = (station.temperature ?? 0) + Double(step % 5_000) / 100 + Double(step / 100_000) / 1_000
            if station.temperature == nil && step % 3 == 0 { changed.temperature = nil }
            return changed
        }
        var writer = JSONWriter(capacity: 256 * 1024)
        OnXFeed.writeSnapshot(day: day, stations: stations, source: .feed, fetchedAt: 1_700_000_000 + Double(step),
                              into: &writer)
        return writer.bytes
    }

    /// Streams snapshots into one persist process until its stdin breaks (it was killed).
    final class Writer: @unchecked Sendable {
        // @unchecked: `done` is only signalled by the thread and waited on by the test.
        private let thread: Thread
        private let done = DispatchSemaphore(value: 0)

        init(feed: CrashFeed, round: Int, persist: ProcessHarness) {
            let done = done
            thread = Thread {
                var step = round * 100_000
                while true {
                    do {
                        try persist.write(String(decoding: feed.snapshot(step: step), as: UTF8.self))
                    } catch {
                        break
                    }
                    step += 1
                }
                done.signal()
            }
        }

        func start() { thread.start() }
        func join() { done.wait() }
    }
}
