import Foundation
import Testing
@testable import IsobarTestSupport

/// A favorites file on a read-only file system, as root too: `isobar filter` runs in a mount
/// namespace of its own (`unshare --mount`) where the data directory is bind-mounted read-only,
/// so the kernel refuses every write whoever asks (a 0444 file would not stop root). The filter
/// says so at start, still serves the lists the file holds, reports one `error` naming the file
/// at the first change, keeps that change in memory, and leaves the file as it was.
@Suite(.serialized, .processSlot) struct FavoritesReadOnlyTests {
    static let viewport = #"{"type":"viewport","client":"alice","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#

    static func favorite(_ id: String) -> String {
        #"{"type":"favorite","client":"alice","id":"\#(id)","on":true}"#
    }

    /// `isobar filter --favorites PATH` with `lines` on stdin, then end of input: its stdout lines.
    static func filter(_ path: String, _ lines: [String]) async throws -> [String] {
        let process = try await ProcessHarness.isobar(["filter", "--favorites", path])
        for line in lines { try process.writeLine(line) }
        process.closeStdin()
        #expect(await process.waitForExit(timeout: .seconds(20)) == .exited(0))
        return process.allStdoutLines
    }

    static func pinned(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix(#"{"type":"pinned""#) }
    }

    @Test func aReadOnlyFileSystemIsOneErrorNamingTheFileAndTheStoredListStillServed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-ro-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/favorites.sqlite"
        #expect(Self.pinned(try await Self.filter(path, [Self.favorite("LZKZ")])) == [
            #"{"type":"pinned","client":"alice","reason":"added","radiusKm":50,"items":[{"id":"LZKZ","today":null,"tomorrow":null}]}"#,
        ])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        // Root unshares a mount namespace directly; anyone else maps themselves to root in a new
        // user namespace first. The bind mount exists only inside, and ends with the process.
        let unshare = geteuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        let script = #"mount --bind -o ro "$1" "$1" && exec "$2" filter --favorites "$1/favorites.sqlite""#
        let process = try await ProcessHarness("unshare", unshare + ["sh", "-c", script, "sh", directory, ProcessHarness.isobarBinary])
        let warning = await process.waitForStderr(containing: "can only be read", timeout: .seconds(20))
        #expect(warning?.contains("isobar filter: favorites: the database \(path) can only be read") == true)

        try process.writeLine(Self.viewport)
        try process.writeLine(Self.favorite("LZIB"))
        process.closeStdin()
        #expect(await process.waitForExit(timeout: .seconds(20)) == .exited(0))
        let lines = process.allStdoutLines
        let errors = lines.filter { $0.hasPrefix(#"{"type":"error""#) }
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix(#"{"type":"error","stage":"filter","message":"favorites store \#(path) failed: the database \#(path) can only be read ("#) == true)
        #expect(errors.first?.contains("Changes to favorites are kept in memory until the filter stops") == true)
        #expect(Self.pinned(lines) == [
            #"{"type":"pinned","client":"alice","reason":"joined","radiusKm":50,"items":[{"id":"LZKZ","today":null,"tomorrow":null}]}"#,
            #"{"type":"pinned","client":"alice","reason":"added","radiusKm":50,"items":[{"id":"LZKZ","today":null,"tomorrow":null},{"id":"LZIB","today":null,"tomorrow":null}]}"#,
        ])

        // Untouched: the same bytes, and a filter on a writable mount reads the list as it was.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(Self.pinned(try await Self.filter(path, [Self.viewport])) == [
            #"{"type":"pinned","client":"alice","reason":"joined","radiusKm":50,"items":[{"id":"LZKZ","today":null,"tomorrow":null}]}"#,
        ])
    }
}
