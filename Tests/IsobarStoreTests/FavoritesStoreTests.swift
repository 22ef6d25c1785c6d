import Foundation
import IsobarCore
import IsobarStore
import Testing

/// The favorites file on real SQLite files: order kept across reopening, and a damaged or
/// unwritable file named in the error, left untouched, the filter going on in memory.
@Suite struct FavoritesStoreTests {
    @Test func listsSurviveReopeningInTheOrderAdded() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let path = directory + "/deeper/favorites.sqlite"
            let store = FavoritesStore(path: path)
            #expect(store.openError == nil)
            for id in ["LZKZ", "K1D3", "GONE", "LZIB"] { try store.add(.station(id), for: "alice") }
            try store.add("K1D3", for: "bob")
            try store.remove("K1D3", for: "alice")
            try store.add("K1D3", for: "alice")  // re-added: now last
            try store.close()
            let again = FavoritesStore(path: path)
            #expect(try again.favorites(of: "alice") == ["LZKZ", "GONE", "LZIB", "K1D3"])
            #expect(try again.favorites(of: "bob") == ["K1D3"])
            #expect(try again.favorites(of: "carol") == [])
            try again.close()
        }
    }

    @Test func aGarbageFileIsNamedInTheErrorAndLeftUntouched() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let path = directory + "/favorites.sqlite"
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
            try garbage.write(to: URL(fileURLWithPath: path))
            let store = FavoritesStore(path: path)
            guard case .corrupt(let named, _) = store.openError else { Issue.record("expected .corrupt, got \(String(describing: store.openError))"); return }
            #expect(named == path)
            #expect(throws: StoreError.self) { try store.add("LZKZ", for: "alice") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    /// A location no one can write, root included: the "directory" is a regular file.
    @Test func anUnwritableLocationIsNamedInTheError() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            try Data("not a directory".utf8).write(to: URL(fileURLWithPath: directory + "/file"))
            let path = directory + "/file/favorites.sqlite"
            let store = FavoritesStore(path: path)
            let error = try #require(store.openError)
            #expect(error.description.contains(directory + "/file"))
            #expect(throws: StoreError.self) { _ = try store.favorites(of: "alice") }
        }
    }

    /// A read-only file (chmod 0444) for a user that permissions bind (root ignores them).
    @Test(.enabled(if: geteuid() != 0, "root writes a 0444 file anyway"))
    func aReadOnlyFileIsNamedInTheError() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let path = directory + "/favorites.sqlite"
            let store = FavoritesStore(path: path)
            try store.add("LZKZ", for: "alice")
            try store.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }
            let readOnly = FavoritesStore(path: path)
            let failed = (try? readOnly.add("LZIB", for: "alice")) == nil
            #expect(failed)
        }
    }

    /// The filter engine on a damaged real file: one error naming it, favorites answered from
    /// memory, the snapshot beside it untouched (a separate file).
    @Test func theFilterOnAGarbageFileReportsItOnceAndGoesOnInMemory() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let path = directory + "/favorites.sqlite"
            try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: path))
            let engine = FilterEngine(favorites: FavoritesStore(path: path))
            var writer = JSONWriter()
            for line in [#"{"type":"favorite","client":"alice","id":"LZKZ","on":true}"#, #"{"type":"favorite","client":"alice","id":"LZIB","on":true}"#] {
                Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, now: 1, into: &writer) }
            }
            let lines = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
            #expect(lines.count == 3)
            #expect(lines.first?.hasPrefix(#"{"type":"error","stage":"filter","message":"favorites store \#(path) failed: the database \#(path) is not a valid isobar store or is damaged"#) == true)
            #expect(lines.last?.hasPrefix(#"{"type":"pinned","client":"alice","reason":"added","radiusKm":50,"items":[{"id":"LZKZ","today":null,"tomorrow":null},{"id":"LZIB""#) == true)
        }
    }

    /// The engine on a real, healthy file: a second engine (a restarted filter) sends the list on join.
    @Test func aRestartedFilterSendsTheStoredListOnJoin() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let path = directory + "/favorites.sqlite"
            func run(_ lines: [String]) -> [String] {
                let store = FavoritesStore(path: path)
                defer { try? store.close() }
                let engine = FilterEngine(favorites: store)
                var writer = JSONWriter()
                for line in lines { Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, now: 1, into: &writer) } }
                return writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasPrefix(#"{"type":"pinned""#) }
            }
            _ = run([#"{"type":"favorite","client":"alice","id":"B","on":true}"#, #"{"type":"favorite","client":"alice","id":"A","on":true}"#])
            let joined = run([#"{"type":"viewport","client":"alice","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#])
            #expect(joined == [#"{"type":"pinned","client":"alice","reason":"joined","radiusKm":50,"items":[{"id":"B","today":null,"tomorrow":null},{"id":"A","today":null,"tomorrow":null}]}"#])
        }
    }

    /// Issue 27 item 9: a flood of names and ids (100 names x 10 ids here, limits scaled down)
    /// leaves the file within its limits; the names used longest ago go first, whole, and the
    /// name being changed never.
    @Test func aFloodOfNamesStaysWithinTheLimits() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let store = FavoritesStore(path: directory + "/favorites.sqlite", limits: FavoritesLimits(names: 20, favorites: 50, perName: 10))
            try store.add("KEEP", for: "alice")
            for name in 0..<100 {
                for id in 0..<10 { try store.add(.station("S\(id)"), for: "flood-\(name)") }
                if name % 3 == 0 { _ = try store.favorites(of: "alice") }  // alice keeps joining
            }
            let size = try store.size()
            #expect(size.names == 5 && size.favorites == 41)
            #expect(try store.favorites(of: "alice") == ["KEEP"])
            #expect(try store.favorites(of: "flood-99").count == 10)
            #expect(try store.favorites(of: "flood-0") == [])
            // Past the ids of one name: refused, the list unchanged.
            #expect(throws: StoreError.invalidArgument("client \"flood-99\" already has 10 favorites in \(store.path); remove one first")) {
                try store.add("ONE-MORE", for: "flood-99")
            }
            try store.close()
        }
    }

    @Test func theOldestUnusedNameGoesWhenTheNamesAreFull() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let store = FavoritesStore(path: directory + "/favorites.sqlite", limits: FavoritesLimits(names: 3))
            for name in ["a", "b", "c"] { try store.add("X", for: name) }
            _ = try store.favorites(of: "a")  // a joins: now b is the oldest unused
            try store.add("X", for: "d")
            #expect(try ["a", "b", "c", "d"].map { try store.favorites(of: $0) } == [["X"], [], ["X"], ["X"]])
            try store.remove("X", for: "c")  // an emptied list frees its name
            #expect(try store.size() == (names: 2, favorites: 2))
            try store.close()
        }
    }
}
