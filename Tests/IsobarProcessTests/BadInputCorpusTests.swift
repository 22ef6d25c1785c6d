#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarBus
import IsobarCore
import Synchronization
import Testing
@testable import IsobarTestSupport

/// The bad-input corpus (`Fixtures/bad-lines/corpus.ndjson` + `manifest.json`, plus the kinds that
/// cannot live in a line file, generated here) fed to every stage and to `isobar plug`.
///
/// Each run interleaves one corpus line after every good line and compares with the same good lines
/// run alone: the output must be exactly the clean output plus one `error` per bad line (in order,
/// with an excerpt of that line) plus the lines the manifest says pass through unchanged. Good lines
/// are also sent with the documented normalizations (a BOM in front, CRLF at the end, blank and
/// whitespace-only lines between them), which must change nothing. Every wait is bounded, every stage
/// must exit 0 at end of input, and its peak RSS (VmHWM) after the 2 MiB lines and the 10,000-deep
/// nesting must stay under `CorpusRun.rssLimitKB`.
@Suite("bad input corpus: every stage and plug", .serialized, .processSlot)
struct BadInputCorpusTests {
    // MARK: The corpus

    struct Entry {
        var kind: String
        var bytes: [UInt8]
        /// fetch, filter, format, persist, plug -> error | pass | ignore
        var expect: [String: String]
        var bug: String?
    }

    static let directory = ProcessHarness.packageRoot.appendingPathComponent("Tests/IsobarProcessTests/Fixtures/bad-lines")

    /// Every corpus entry: the file's lines (in manifest order), then the generated kinds.
    static let all: [Entry] = {
        let manifestData = (try? Data(contentsOf: directory.appendingPathComponent("manifest.json"))) ?? Data()
        let manifest = (try? JSONSerialization.jsonObject(with: manifestData) as? [String: Any]) ?? [:]
        let meta = manifest["lines"] as? [[String: Any]] ?? []
        let raw = [UInt8]((try? Data(contentsOf: directory.appendingPathComponent("corpus.ndjson"))) ?? Data())
        let lines = raw.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
        var entries: [Entry] = []
        for (line, info) in zip(lines, meta) {
            entries.append(Entry(kind: info["kind"] as? String ?? "?", bytes: line,
                                 expect: info["expect"] as? [String: String] ?? [:], bug: info["bug"] as? String))
        }
        if lines.count != meta.count { entries.removeAll() }  // the test below reports the mismatch
        let everywhere = ["fetch": "error", "filter": "error", "format": "error", "persist": "error", "plug": "error"]
        func generated(_ kind: String, _ bytes: [UInt8]) -> Entry { Entry(kind: kind, bytes: bytes, expect: everywhere) }
        let open = Array(#"{"type":"corpus-unknown","k":"#.utf8)
        entries += [
            generated("line-2MiB", open + [0x22] + [UInt8](repeating: 0x78, count: 2 << 20) + Array(#""}"#.utf8)),
            generated("nesting-10000-in-object", open + [UInt8](repeating: 0x5B, count: 10_000) + [UInt8](repeating: 0x5D, count: 10_000) + [0x7D]),
            generated("nesting-10000-bare", [UInt8](repeating: 0x5B, count: 10_000) + [UInt8](repeating: 0x5D, count: 10_000)),
            generated("nesting-10000-objects", Array(String(repeating: #"{"a":"#, count: 10_000).utf8) + [0x31] + [UInt8](repeating: 0x7D, count: 10_000)),
            generated("invalid-utf8-in-string", open + Array("\"bad".utf8) + [0xFF, 0xFE] + Array("\"}".utf8)),
            generated("invalid-utf8-overlong-slash", open + Array("\"ov".utf8) + [0xC0, 0xAF] + Array("er\"}".utf8)),
            generated("invalid-utf8-truncated-sequence", open + Array("\"x".utf8) + [0xE2, 0x82] + Array("\"}".utf8)),
            generated("invalid-utf8-lead-byte", [0xFF] + Array(#"{"type":"corpus-unknown"}"#.utf8)),
            generated("nul-in-string", open + Array("\"nul".utf8) + [0x00] + Array("\"}".utf8)),
            generated("nul-alone", [0x00]),
            generated("nul-after-object", Array(#"{"type":"corpus-unknown"}"#.utf8) + [0x00]),
            generated("bom-then-garbage", [0xEF, 0xBB, 0xBF] + Array("garbage".utf8)),
            // 50,000 distinct keys in a nested object, then a repeat of one of them: the key set
            // switches to hashing, so this costs O(n) rather than O(n²) comparisons.
            generated("duplicate-key-after-50000-keys",
                      open + Array(("{" + (0..<50_000).map { "\"k\($0)\":0" }.joined(separator: ",") + ",\"k777\":1}}").utf8)),
        ]
        return entries
    }()

    /// The entries the interleaved runs use: all but known product gaps (manifest entries with a `bug`; none today).
    static var corpus: [Entry] { all.filter { $0.bug == nil } }

    /// Lines that must produce nothing at all (blank and whitespace-only), inserted between good lines.
    static let blankLines: [[UInt8]] = [[], [0x20, 0x20, 0x20], [0x09], [0x0D], [0x20, 0x0D]]

    // MARK: Good lines

    static let fixtures = ProcessHarness.packageRoot.appendingPathComponent("Fixtures").path

    /// `isobar fetch --once` on the fixtures: both days' stations and end markers, warnings, status.
    static func fetchLines() async -> [String] {
        if let cached = cache.withLock({ $0["fetch"] }) { return cached }
        guard let fetch = try? await ProcessHarness.isobar(["fetch", "--once", "--today", fixtures + "/today.json", "--tomorrow", fixtures + "/tomorrow.json"]) else { return [] }
        fetch.closeStdin()
        var lines: [String] = []
        while let line = await fetch.nextStdoutLine(timeout: .seconds(60)) { lines.append(line) }
        _ = await fetch.waitForExit(timeout: .seconds(10))
        cache.withLock { $0["fetch"] = lines }
        return lines
    }

    /// `fetchLines()` and `formatGood()` once made (each costs a process run).
    private static let cache = Mutex<[String: [String]]>([:])

    static let alice = #"{"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20}}"#

    /// The filter's good input: the fixture snapshots, then a client that pans, zooms, selects and toggles.
    static func filterGood() async -> [String] {
        await fetchLines() + [
            alice,
            #"{"type":"select","client":"alice","id":"K1D3"}"#,
            #"{"type":"viewport","client":"alice","center":{"latitude":42,"longitude":-104},"span":{"latitudeDelta":20,"longitudeDelta":20}}"#,
            #"{"type":"viewport","client":"alice","center":{"latitude":42,"longitude":-104},"span":{"latitudeDelta":20,"longitudeDelta":20},"field":"wind"}"#,
            #"{"type":"viewport","client":"alice","center":{"latitude":42,"longitude":-104},"span":{"latitudeDelta":20,"longitudeDelta":20},"day":"tomorrow","field":"precipitation"}"#,
            #"{"type":"resync","client":"alice","reason":"corpus test"}"#,
            #"{"type":"viewport","client":"bob","center":{"latitude":47,"longitude":179},"span":{"latitudeDelta":30,"longitudeDelta":40}}"#,
            #"{"type":"select","client":"alice","id":null}"#,
        ]
    }

    /// The formatter's good input: what the filter writes for `filterGood`.
    static func formatGood() async -> [String] {
        if let cached = cache.withLock({ $0["format"] }) { return cached }
        let lines = (try? await CorpusRun.pipe(["filter"], stage: "filter", good: filterGood(), corpus: nil).lines) ?? []
        cache.withLock { $0["format"] = lines }
        return lines
    }

    // MARK: Tests

    @Test("the corpus has at least 25 kinds, and the manifest matches the line file")
    func corpusIsComplete() throws {
        let raw = try Data(contentsOf: Self.directory.appendingPathComponent("corpus.ndjson"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.directory.appendingPathComponent("manifest.json"))) as? [String: Any])
        let meta = try #require(manifest["lines"] as? [[String: Any]])
        #expect(raw.split(separator: 0x0A).count == meta.count, "one manifest entry per corpus line")
        #expect(Set(Self.all.map(\.kind)).count == Self.all.count, "kinds are unique")
        #expect(Self.corpus.count >= 25)
        for entry in Self.all {
            #expect(Set(entry.expect.keys) == ["fetch", "filter", "format", "persist", "plug"], "\(entry.kind)")
        }
    }

    @Test("filter: one error per bad line, good lines unchanged, bounded memory")
    func filterStage() async throws {
        let clean = try await CorpusRun.pipe(["filter"], stage: "filter", good: await Self.filterGood(), corpus: nil)
        let dirty = try await CorpusRun.pipe(["filter"], stage: "filter", good: await Self.filterGood(), corpus: Self.corpus)
        #expect(clean.lines.contains { $0.contains(#""type":"visible""#) } && clean.lines.contains { $0.contains(#""type":"selection""#) })
        try await CorpusRun.compare(stage: "filter", clean: clean, dirty: dirty)
    }

    @Test("format: one error per bad line, good lines unchanged, bounded memory")
    func formatStage() async throws {
        try #require(await Self.formatGood().contains { $0.contains(#""type":"visible""#) })
        let clean = try await CorpusRun.pipe(["format"], stage: "format", good: await Self.formatGood(), corpus: nil)
        let dirty = try await CorpusRun.pipe(["format"], stage: "format", good: await Self.formatGood(), corpus: Self.corpus)
        #expect(clean.lines.contains { $0.contains(#""type":"annotations""#) } && clean.lines.contains { $0.contains(#""type":"callout""#) })
        try await CorpusRun.compare(stage: "format", clean: clean, dirty: dirty)
    }

    @Test("persist: one error per bad line, the same snapshots stored and replayed, bounded memory")
    func persistStage() async throws {
        let good = await Self.fetchLines() + [#"{"type":"resync","reason":"corpus test"}"#]
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-corpus-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clean = try await CorpusRun.pipe(["persist", "--data-dir", root + "/clean"], stage: "persist", good: good, corpus: nil)
        let dirty = try await CorpusRun.pipe(["persist", "--data-dir", root + "/dirty"], stage: "persist", good: good, corpus: Self.corpus)
        #expect(clean.lines.filter { $0.contains(#""source":"store""#) }.count == 2, "the resync replays both days")
        try await CorpusRun.compare(stage: "persist", clean: clean, dirty: dirty)
    }

    @Test("fetch (stdin): one error per bad line, other messages ignored, resyncs still answered, bounded memory")
    func fetchStage() async throws {
        let clean = try await CorpusRun.fetch(corpus: nil)
        let dirty = try await CorpusRun.fetch(corpus: Self.corpus)
        #expect(clean.lines.filter { $0.contains(#""type":"snapshot""#) }.count == 2 * (CorpusRun.fetchRounds(Self.corpus.count) + 1))
        try await CorpusRun.compare(stage: "fetch", clean: clean, dirty: dirty)
    }

    @Test("plug, COMMAND output: a line that is not a JSON object with a string type becomes one error; the rest is published")
    func plugCommandOutput() async throws {
        signal(SIGPIPE, SIG_IGN)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-corpus-plug-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = (0..<Self.corpus.count * 2).map { #"{"type":"good","n":\#($0)}"# }
        let input = CorpusRun.interleave(good: good, corpus: Self.corpus)
        let file = directory.appendingPathComponent("output.ndjson")
        try Data(input.bytes + Array("{\"type\":\"done\"}\n".utf8)).write(to: file)

        let broker = try await RunningBroker.start()
        let script = #"while IFS= read -r x; do case "$x" in *probe*) echo '{"type":"pong"}';; *) cat "$1";; esac; done"#
        let plug = try await broker.startPlug(["--name", "corpus", "--sub", "go", "--", "sh", "-c", script, "sh", file.path])
        let client = try BusClient(broker, subscriptions: ["good", "error", "corpus-unknown", "station", "viewport", "visible",
                                                          "select", "selection", "resync", "snapshot", "done", "pong"])
        try #require(try client.handshake(topic: "go") { #"{"type":"go","probe":\#($0)}"# }, "\(plug.stderrText)")
        try client.pub.send(topic: "go", line: #"{"type":"go"}"#)

        var lines: [String] = []
        var done = false
        while !done, let message = try client.sub.receiveMessage(timeout: .seconds(30)) {
            if message.topic == "pong" { continue }
            if message.topic == "done" { done = true; break }
            // A batch holds lines of one topic only: the one derived from each of them.
            for line in message.lines {
                let payload = String(decoding: line, as: UTF8.self)
                if message.topic != "error", let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] {
                    let client = object["client"] as? String ?? ""
                    // type/client, with the client's partition for client->filter types (viewport/07/alice).
                    #expect(message.topic == Topic.of(type: object["type"] as? String ?? "", client: client), "\(payload.prefix(80))")
                }
                lines.append(payload)
            }
        }
        #expect(done, "the end marker never arrived\n\(plug.stderrText.suffix(2000))")
        let clean = CorpusRun.Output(lines: good, peakKB: 0)
        try await CorpusRun.compare(stage: "corpus", expectKey: "plug", clean: clean,
                              dirty: CorpusRun.Output(lines: lines, peakKB: 0), entries: input.inserted)
        let peak = CorpusRun.peakRSSKB(plug.pid)
        #expect(peak < CorpusRun.rssLimitKB, "plug peak RSS \(peak) kB")
        plug.signal(SIGTERM); _ = await plug.waitForExit(timeout: .seconds(10))
        await broker.stop()
    }

    @Test("plug, bus input: bad messages reach the hosted filter and cost one error each; its good output is unchanged")
    func plugBusInput() async throws {
        let clean = try await CorpusRun.pipe(["filter"], stage: "filter", good: await Self.filterGood(), corpus: nil)
        let broker = try await RunningBroker.start()
        let plug = try await ProcessHarness.isobar(["plug", "--name", "filter"] + FilterEngine.subscriptions.flatMap { ["--sub", $0] }
                                             + ["--", ProcessHarness.isobarBinary, "filter"],
                                             environment: broker.environment.merging(CorpusRun.deterministic) { $1 })
        try #require(await plug.waitForStderr(containing: "started", timeout: .seconds(10)) != nil, "\(plug.stderrText)")
        let client = try BusClient(broker, subscriptions: ["error", "visible/alice", "selection/alice", "visible/bob", "selection/bob",
                                                          "corpus-unknown", "warning", "status"])
        // Wait out the slow joiner: an unknown client's select is answered with an error.
        try #require(try client.handshake(topic: "select/probe") { #"{"type":"select","client":"probe","id":"K\#($0)"}"# }, "\(plug.stderrText)")

        let input = CorpusRun.interleave(good: await Self.filterGood(), corpus: Self.corpus)
        for (index, message) in input.messages.enumerated() {
            try client.pub.send(topic: "station", payload: message)
            if index % 100 == 99 { usleep(2_000) }  // pacing only: stay far below the high-water marks
        }
        try client.pub.send(topic: "station", line: #"{"type":"corpus-unknown","end":true}"#)
        var lines: [String] = []
        var ended = false
        receiving: while let message = try client.sub.receiveMessage(timeout: .seconds(30)) {
            for line in message.lines {
                let payload = String(decoding: line, as: UTF8.self)
                if payload == #"{"type":"corpus-unknown","end":true}"# { ended = true; break receiving }
                lines.append(payload)
            }
        }
        #expect(ended, "the end marker never came back\n\(plug.stderrText.suffix(2000))")
        try await CorpusRun.compare(stage: "filter", clean: clean, dirty: CorpusRun.Output(lines: lines, peakKB: 0), entries: input.inserted)
        if let child = plug.childPIDs().first {
            let peak = CorpusRun.peakRSSKB(child)
            #expect(peak > 0 && peak < CorpusRun.rssLimitKB, "filter under plug: peak RSS \(peak) kB")
        }
        for (name, pid) in [("plug", plug.pid), ("broker", broker.process.pid)] {
            let peak = CorpusRun.peakRSSKB(pid)
            #expect(peak > 0 && peak < CorpusRun.rssLimitKB, "\(name): peak RSS \(peak) kB")
        }
        plug.signal(SIGTERM); _ = await plug.waitForExit(timeout: .seconds(10))
        await broker.stop()
    }

    @Test("-0 reads as 0: a snapshot and a viewport written with -0 give exactly the output of 0")
    func minusZeroIsZero() async throws {
        func zeroed(_ line: String, _ zero: String) -> String {
            line.replacingOccurrences(of: #""precipitation":0,"#, with: #""precipitation":\#(zero),"#)
                .replacingOccurrences(of: #""precipitation":0}"#, with: #""precipitation":\#(zero)}"#)
        }
        let viewport = #"{"type":"viewport","client":"zed","center":{"latitude":40.924,"longitude":ZERO},"span":{"latitudeDelta":25,"longitudeDelta":40}}"#
        // Only the station lines change; the snapshot id (a hash of the content) stays that of the fixture.
        let plain = await Self.fetchLines().map { zeroed($0, "0") } + [viewport.replacingOccurrences(of: "ZERO", with: "0")]
        let negative = await Self.fetchLines().map { zeroed($0, "-0") } + [viewport.replacingOccurrences(of: "ZERO", with: "-0")]
        #expect(negative.joined().contains(#""precipitation":-0"#))
        let a = try await CorpusRun.pipe(["filter"], stage: "filter", good: plain, corpus: nil)
        let b = try await CorpusRun.pipe(["filter"], stage: "filter", good: negative, corpus: nil)
        #expect(a.lines == b.lines)
        #expect(!b.lines.joined().contains("-0,") && !b.lines.joined().contains("-0}"))
        let formatted = try await CorpusRun.pipe(["format"], stage: "format", good: b.lines, corpus: nil)
        #expect(formatted.lines == (try await CorpusRun.pipe(["format"], stage: "format", good: a.lines, corpus: nil)).lines)
    }
}

/// Running a stage over good lines with or without corpus lines interleaved, and comparing.
enum CorpusRun {
    /// Peak RSS allowed for any process after the corpus (debug build; a stage idles at ~30 MB).
    static let rssLimitKB = 100 * 1024

    /// Extra environment for the stages. Empty on purpose: Swift seeds hashing per process, and the
    /// stages must be byte-for-byte deterministic anyway (the filter sorts its `remove` lists; with
    /// the sort removed these tests fail). `SWIFT_DETERMINISTIC_HASHING=1` would hide such a bug.
    static let deterministic: [String: String] = [:]

    struct Output {
        var lines: [String]
        var peakKB: Int
    }

    struct Interleaved {
        /// The bytes of a pipe input, `\n`-terminated lines.
        var bytes: [UInt8]
        /// The same lines as bus payloads (no terminator; CRLF lines keep their `\r`).
        var messages: [[UInt8]]
        /// The corpus entries in the order they were inserted.
        var inserted: [BadInputCorpusTests.Entry]
    }

    /// One corpus line after each good line (cycling through the corpus), every third good line with
    /// a BOM, every fifth with CRLF, and a blank or whitespace-only line after every fourth.
    static func interleave(good: [String], corpus: [BadInputCorpusTests.Entry]?) -> Interleaved {
        var result = Interleaved(bytes: [], messages: [], inserted: [])
        func add(_ line: [UInt8], crlf: Bool = false) {
            let payload = crlf ? line + [0x0D] : line
            result.messages.append(payload)
            result.bytes += payload + [0x0A]
        }
        for (index, line) in good.enumerated() {
            guard let corpus, !corpus.isEmpty else {
                add(Array(line.utf8))
                continue
            }
            add((index % 3 == 1 ? [0xEF, 0xBB, 0xBF] : []) + Array(line.utf8), crlf: index % 5 == 2)
            let entry = corpus[index % corpus.count]
            add(entry.bytes)
            result.inserted.append(entry)
            if index % 4 == 3 { add(BadInputCorpusTests.blankLines[index / 4 % BadInputCorpusTests.blankLines.count]) }
        }
        // Every kind at least once, even with few good lines.
        if let corpus, good.count < corpus.count {
            for entry in corpus[good.count...] {
                add(entry.bytes)
                result.inserted.append(entry)
            }
        }
        return result
    }

    /// Runs `isobar ARGUMENTS` as a pipe stage. The input goes through a file and `cat` (so invalid
    /// UTF-8 and NUL bytes reach the stage byte for byte), followed by the test's own stdin, on which
    /// a mark line is written and awaited (so the peak RSS is read with all input processed); then
    /// stdin is closed and the output read to the end.
    static func pipe(_ arguments: [String], stage: String, good: [String], corpus: [BadInputCorpusTests.Entry]?) async throws -> Output {
        let input = interleave(good: good, corpus: corpus)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-corpus-input-\(UUID().uuidString)")
        try Data(input.bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try await ProcessHarness("/bin/sh", ["-c", #"cat "$0" - | "$@""#, file.path, ProcessHarness.isobarBinary] + arguments,
                                         environment: deterministic)
        let mark = #"{"type":"corpus-mark"}"#
        try process.writeLine(mark)
        var lines: [String] = []
        var marked = false
        while let line = await process.nextStdoutLine(timeout: .seconds(90)) {
            if line == mark { marked = true; break }
            lines.append(line)
        }
        try #require(marked, "\(stage): the mark never came back (hang or crash?)\n\(process.stderrText.suffix(3000))")
        let stagePID = stagePID(under: process.pid)
        let peak = stagePID.map(peakRSSKB) ?? 0
        process.closeStdin()
        while let line = await process.nextStdoutLine(timeout: .seconds(30)) { lines.append(line) }
        let ended = await process.waitForExit(timeout: .seconds(20))
        #expect(ended == .exited(0), "\(stage) \(arguments): \(ended.map(\.description) ?? "still running")\n\(process.stderrText.suffix(3000))")
        #expect(peak > 0 && peak < rssLimitKB, "\(stage): peak RSS \(peak) kB")
        return Output(lines: lines, peakKB: peak)
    }

    /// The `isobar` process among the children of `parent`.
    static func stagePID(under parent: pid_t) -> pid_t? {
        ProcessHarness.children(of: parent).first { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("isobar") == true
        }
    }

    /// Corpus lines fetch reads per resync round.
    static func fetchRounds(_ corpusCount: Int) -> Int { (corpusCount + 9) / 10 }

    /// `isobar fetch` on the fixture files: waits for the first round, then per round writes ten
    /// corpus lines (when given) and one resync request, and waits for both days' republished end markers.
    static func fetch(corpus: [BadInputCorpusTests.Entry]?) async throws -> Output {
        signal(SIGPIPE, SIG_IGN)
        let f = BadInputCorpusTests.fixtures
        // stdin through a FIFO and `cat`, so invalid UTF-8 and NUL bytes arrive byte for byte.
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("isobar-corpus-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        defer { unlink(fifo) }
        let process = try await ProcessHarness("/bin/sh", ["-c", #"cat "$0" | "$@""#, fifo, ProcessHarness.isobarBinary,
                                                     "fetch", "--today", f + "/today.json", "--tomorrow", f + "/tomorrow.json", "--interval", "3600"],
                                        environment: deterministic)
        let stdin = try #require(FileHandle(forWritingAtPath: fifo))
        defer { try? stdin.close() }
        var lines: [String] = []
        func awaitEndMarkers(_ count: Int) async throws {
            var seen = 0
            while seen < count, let line = await process.nextStdoutLine(timeout: .seconds(60)) {
                lines.append(line)
                if line.contains(#""type":"snapshot""#) { seen += 1 }
            }
            try #require(seen == count, "fetch: \(seen) of \(count) end markers\n\(process.stderrText.suffix(3000))")
        }
        try await awaitEndMarkers(2)
        let all = BadInputCorpusTests.corpus
        var peak = 0
        for round in 0..<fetchRounds(all.count) {
            var chunk: [UInt8] = []
            if corpus != nil {
                for entry in all[(round * 10)..<min(all.count, round * 10 + 10)] { chunk += entry.bytes + [0x0A] }
                chunk += BadInputCorpusTests.blankLines[round % BadInputCorpusTests.blankLines.count] + [0x0A]
            }
            let bom: [UInt8] = corpus != nil && round % 2 == 1 ? [0xEF, 0xBB, 0xBF] : []
            chunk += bom + Array(#"{"type":"resync","reason":"corpus round \#(round)"}"#.utf8) + (corpus != nil && round % 3 == 0 ? [0x0D, 0x0A] : [0x0A])
            try stdin.write(contentsOf: Data(chunk))
            try await awaitEndMarkers(2)
            peak = max(peak, stagePID(under: process.pid).map(peakRSSKB) ?? 0)
        }
        try? stdin.close()  // cat ends; fetch treats end of input as normal and keeps polling
        if let fetch = stagePID(under: process.pid) { kill(fetch, SIGTERM) }
        let ended = await process.waitForExit(timeout: .seconds(20))
        while let line = await process.nextStdoutLine(timeout: .seconds(5)) { lines.append(line) }
        #expect(ended == .exited(0), "fetch: \(ended.map(\.description) ?? "still running")\n\(process.stderrText.suffix(3000))")
        #expect(peak > 0 && peak < rssLimitKB, "fetch: peak RSS \(peak) kB")
        return Output(lines: lines, peakKB: peak)
    }

    /// Checks `dirty` against `clean` for the entries inserted into it: one error per bad line, in
    /// order, naming `stage` with an excerpt of that line; pass-through lines verbatim; nothing else.
    static func compare(stage: String, expectKey: String? = nil, clean: Output, dirty: Output,
                        entries: [BadInputCorpusTests.Entry]? = nil) async throws {
        let key = expectKey ?? stage
        let expectedEntries = if let entries { entries } else { await insertedEntries(stage: key) }
        let errorEntries = expectedEntries.filter { $0.expect[key] == "error" }
        let passEntries = expectedEntries.filter { $0.expect[key] == "pass" }
        #expect(!clean.lines.contains { $0.contains(#""type":"error""#) }, "\(stage): the clean run has errors")

        var errors: [[String: Any]] = []
        var rest: [String] = []
        for line in dirty.lines {
            if line.hasPrefix(#"{"type":"error""#), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                errors.append(object)
            } else {
                rest.append(line)
            }
        }
        #expect(errors.count == errorEntries.count, "\(stage): \(errors.count) errors for \(errorEntries.count) bad lines")
        for (error, entry) in zip(errors, errorEntries) {
            #expect(error["stage"] as? String == stage, "\(entry.kind): \(error)")
            #expect((error["message"] as? String ?? "").isEmpty == false, "\(entry.kind): no message")
            let excerpt = (error["excerpt"] as? String ?? "").replacingOccurrences(of: "…", with: "")
            let text = String(decoding: entry.bytes.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }.prefix(80), as: UTF8.self)
            if !excerpt.contains("\u{FFFD}") && entry.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                #expect(text.hasPrefix(excerpt) && !excerpt.isEmpty, "\(stage) \(entry.kind): excerpt \(excerpt) is not from its line; errors out of order?")
            }
        }
        // Remove the pass-through lines (each verbatim, in order), then what is left is the clean output.
        var remaining = rest[...]
        var kept: [String] = []
        for entry in passEntries {
            let text = String(decoding: entry.bytes, as: UTF8.self)
            if let index = remaining.firstIndex(of: text) {
                kept += remaining[remaining.startIndex..<index]
                remaining = remaining[(index + 1)...]
            } else {
                Issue.record("\(stage): \(entry.kind) did not pass through unchanged")
            }
        }
        kept += remaining
        print("reliability: corpus \(stage): \(expectedEntries.count) bad lines interleaved with \(clean.lines.count) good output lines: \(errors.count) errors (expected \(errorEntries.count)), \(passEntries.count) passed through, peak RSS \(dirty.peakKB) kB")
        let normalize = stage == "fetch" || stage == "persist"
        var left = normalize ? kept.map(stripTimes) : kept
        var right = normalize ? clean.lines.map(stripTimes) : clean.lines
        if stage == "fetch" {
            // fetch polls both days concurrently: each day's lines are ordered, the two interleave freely.
            left = byDay(left)
            right = byDay(right)
        }
        #expect(left.count == right.count, "\(stage): \(left.count) good output lines with the corpus, \(right.count) without")
        if left != right, let first = (0..<min(left.count, right.count)).first(where: { left[$0] != right[$0] }) {
            let a = Array(left[first]), b = Array(right[first])
            let at = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            let from = max(0, at - 150)
            Issue.record("\(stage): good output differs at line \(first), character \(at):\n  with corpus:    …\(String(a[from..<min(a.count, at + 150)]))\n  without corpus: …\(String(b[from..<min(b.count, at + 150)]))")
        }
    }

    /// The corpus entries `interleave` inserted for a stage's good input.
    private static func insertedEntries(stage: String) async -> [BadInputCorpusTests.Entry] {
        switch stage {
        case "fetch": return BadInputCorpusTests.corpus
        default: return interleave(good: await goodLines(stage), corpus: BadInputCorpusTests.corpus).inserted
        }
    }

    private static func goodLines(_ stage: String) async -> [String] {
        switch stage {
        case "filter": await BadInputCorpusTests.filterGood()
        case "format": await BadInputCorpusTests.formatGood()
        case "persist": await BadInputCorpusTests.fetchLines() + [#"{"type":"resync","reason":"corpus test"}"#]
        default: []
        }
    }

    /// Today's lines in order, then tomorrow's in order, then the rest (warnings) sorted.
    static func byDay(_ lines: [String]) -> [String] {
        let today = lines.filter { $0.contains(#""day":"today""#) }
        let tomorrow = lines.filter { $0.contains(#""day":"tomorrow""#) }
        let rest = lines.filter { !$0.contains(#""day":"today""#) && !$0.contains(#""day":"tomorrow""#) }
        return today + tomorrow + rest.sorted()
    }

    /// Replays and republishes carry when they were fetched and how old they are: equal content, other times.
    static func stripTimes(_ line: String) -> String {
        line.replacingOccurrences(of: #""fetchedAt":[-0-9.e+]+"#, with: #""fetchedAt":T"#, options: .regularExpression)
            .replacingOccurrences(of: #""ageSeconds":[-0-9.e+]+"#, with: #""ageSeconds":T"#, options: .regularExpression)
    }


    /// VmHWM (peak resident set) of a process in kB, from /proc; 0 if it is gone.
    static func peakRSSKB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// VmRSS (current resident set) in kB, from /proc; 0 if the process is gone.
    static func rssKB(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
