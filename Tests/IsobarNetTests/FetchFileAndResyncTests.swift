#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarNet
import Testing

@Suite struct FetchFileAndResyncTests {
    @Test func onceRoundOnTheFixtureFiles() async throws {
        let options = FetchOptions(today: TestSupport.fixture(.today), tomorrow: "file://" + TestSupport.fixture(.tomorrow), once: true)
        try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.round())
            let types = try output.types()
            #expect(types.filter { $0 == "station" }.count == 362)
            #expect(types.filter { $0 == "snapshot" }.count == 2)
            #expect(types.filter { $0 == "warning" }.count == 5)
            #expect(types.filter { $0 == "status" }.count == 2)
            #expect(types.count == 371)
            let messages = try output.messages()
            let days = messages.compactMap { $0.field("day").flatMap($0.string) }
            #expect(days.firstIndex(of: "tomorrow")! > days.lastIndex(of: "today")!, "today's lines come first")
            let warnings = messages.filter { $0.field("type").flatMap($0.string) == "warning" }
            #expect(warnings.allSatisfy { ($0.field("message").flatMap($0.string) ?? "").contains("105") })
            let tomorrow = try #require(await fetcher.latest(.tomorrow))
            #expect(tomorrow.stations.allSatisfy { ($0.precipitation ?? 0) <= 100 })

            output.clear()
            #expect(await fetcher.round(), "an untouched file is unchanged")
            #expect(output.text.isEmpty)
        }
    }

    @Test func aBadFileKeepsTheLastGoodSnapshotAndResyncRepublishesIt() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/today.json"
        try Data(try TestSupport.fixtureBytes(.today)).write(to: URL(fileURLWithPath: path))
        let clock = ManualClock(5_000)
        let options = FetchOptions(today: path, tomorrow: directory + "/missing.json")
        try await TestSupport.withFetcher(options, clock: clock.closure) { fetcher, output throws in
            #expect(await fetcher.fetch(.today))
            let good = try #require(await fetcher.latest(.today))
            #expect(good.stations.count == 181)

            for bad in ["[]", "[{\"id\":\"X\"", "<html></html>", "{\"id\":\"K1\"}"] {
                output.clear()
                try Data(bad.utf8).write(to: URL(fileURLWithPath: path))
                #expect(await fetcher.fetch(.today) == false)
                #expect(try output.count("station") == 0)
                #expect(try output.statuses().map(\.state) == [.failed])
                #expect(await fetcher.latest(.today) == good, "never a partial snapshot; the last good one stays")
            }

            #expect(await fetcher.fetch(.tomorrow) == false)
            output.clear()
            clock.advance(42)
            await fetcher.resync(reason: "test")
            let snapshots = try output.snapshots()
            #expect(snapshots.count == 1)
            #expect(snapshots.first?.snapshot == good.id)
            #expect(snapshots.first?.fetchedAt == 5_000)
            #expect(snapshots.first?.ageSeconds == 42)
            #expect(try output.count("station") == 181)
            let statuses = try output.statuses()
            #expect(statuses.map(\.day) == [.today, .tomorrow])
            #expect(statuses.map(\.state) == [.failed, .failed])
            #expect(statuses.last?.reason.contains("missing.json") == true)
        }
    }

    @Test func resyncOnStdinRepublishesAndOtherLinesAreNotPassedThrough() async throws {
        let options = FetchOptions(today: TestSupport.fixture(.today), tomorrow: TestSupport.fixture(.tomorrow))
        try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.round())
            output.clear()
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            let gate = ResyncGate { reason in await fetcher.resync(reason: reason) }
            FetchInput.start(fd: fds[0], output: output) { reason in gate.request(reason: reason) }
            let input = """
            {"type":"viewport","client":"alice","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}
            not json
            {"type":"resync","client":"alice","reason":"gap"}
            {"type":"resync","reason":"late start"}

            """
            let written = input.utf8.withContiguousStorageIfAvailable { write(fds[1], $0.baseAddress, $0.count) } ?? -1
            #expect(written == input.utf8.count)
            close(fds[1])
            let deadline = UnixClock.now() + 10
            while (try output.count("snapshot")) < 2 && UnixClock.now() < deadline {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            let types = try output.types()
            #expect(types.filter { $0 == "snapshot" }.count == 2)
            #expect(types.filter { $0 == "station" }.count == 362)
            #expect(types.filter { $0 == "error" }.count == 1, "only the non-JSON line is an error")
            #expect(!types.contains("viewport") && !types.contains("resync"), "fetch is a source: nothing passes through")
        }
    }

    @Test func inputClassification() {
        func action(_ line: String) -> FetchInput.Action {
            Array(line.utf8).withUnsafeBytes { FetchInput.action(for: $0) }
        }
        #expect(action(#"{"type":"resync"}"#) == .resync(reason: ""))
        #expect(action(#"{"type":"resync","reason":"gap","extra":1}"#) == .resync(reason: "gap"))
        #expect(action(#"{"type":"resync","client":""}"#) == .resync(reason: ""))
        #expect(action(#"{"type":"resync","client":"bob"}"#) == .ignore)
        #expect(action(#"{"type":"station"}"#) == .ignore)
        guard case .error = action("[1,2]") else { Issue.record("not an object"); return }
        guard case .error = action(#"{"kind":"resync"}"#) else { Issue.record("no type"); return }
        guard case .error = action(#"{"type":"resync","client":5}"#) else { Issue.record("bad client"); return }
    }
}
