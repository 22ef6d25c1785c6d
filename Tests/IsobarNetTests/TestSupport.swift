import Synchronization
import Foundation
import IsobarCore
import IsobarNet
import IsobarSampleFeed
import Logging
import IsobarStdio

/// Paths and helpers shared by the IsobarNet tests.
enum TestSupport {
    /// The repository's Fixtures directory, found from this file's location.
    static let fixtures: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures").path
    }()

    static func fixture(_ day: Day) -> String { fixtures + "/" + day.rawValue + ".json" }

    static func fixtureBytes(_ day: Day) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: fixture(day))))
    }

    static let quiet = Logger(label: "isobar-net-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A fresh empty directory under the temporary directory.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "isobar-net-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `body` with a sample feed on 127.0.0.1:0, stopped afterwards whatever happens.
    static func withServer<T>(_ options: SampleFeedOptions = SampleFeedOptions(port: 0, fixturesDirectory: fixtures),
                              clock: @escaping @Sendable () -> Double = UnixClock.now,
                              _ body: (SampleFeedServer) async throws -> T) async throws -> T {
        let server = try await SampleFeedServer.start(options, clock: clock, logger: quiet)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Runs `body` with a fetcher writing into a `CollectingOutput`; its HTTP client is shut down afterwards.
    static func withFetcher<T>(_ options: FetchOptions, clock: @escaping @Sendable () -> Double = UnixClock.now,
                               jitter: Jitter = .fixed(0.5),
                               _ body: (FeedFetcher, CollectingOutput) async throws -> T) async throws -> T {
        let client = FeedClient(options: options)
        let output = CollectingOutput()
        do {
            let fetcher = try FeedFetcher(options: options, client: client, output: output, logger: quiet, clock: clock, jitter: jitter)
            let result = try await body(fetcher, output)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// Runs `body` with a bare `FeedClient`, shut down afterwards.
    static func withClient<T>(timeout: Double = 10, maxBodyBytes: Int = 8 << 20, maxRedirects: Int = 3,
                              _ body: (FeedClient) async throws -> T) async throws -> T {
        let client = FeedClient(timeout: timeout, maxBodyBytes: maxBodyBytes, maxRedirects: maxRedirects)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }
}

/// Collects what the fetcher writes, for inspection line by line.
final class CollectingOutput: FetchOutput, Sendable {
    private let bytes = Mutex<[UInt8]>([])

    func write(_ writer: inout JSONWriter) {
        let written = writer.bytes
        bytes.withLock { $0.append(contentsOf: written) }
        writer.removeAll()
    }

    @discardableResult func flush() -> Bool { true }

    var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Every line written so far, parsed.
    func messages() throws -> [JSONObject] {
        try text.split(separator: "\n").map { try JSONObject(parsing: String($0)) }
    }

    /// The `type` of every line written so far.
    func types() throws -> [String] {
        try messages().map { $0.field("type").flatMap($0.string) ?? "" }
    }

    /// The status lines written so far.
    func statuses() throws -> [StatusMessage] {
        try messages().filter { $0.field("type").flatMap($0.string) == "status" }.map { try StatusMessage(from: $0) }
    }

    /// The snapshot end markers written so far.
    func snapshots() throws -> [SnapshotEnd] {
        try messages().filter { $0.field("type").flatMap($0.string) == "snapshot" }.map { try SnapshotEnd(from: $0) }
    }

    func count(_ type: String) throws -> Int { try types().filter { $0 == type }.count }

    func clear() { bytes.withLock { $0.removeAll() } }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let now: Mutex<Double>

    init(_ start: Double) { now = Mutex(start) }

    func read() -> Double { now.withLock { $0 } }
    func advance(_ seconds: Double) { now.withLock { $0 += seconds } }

    var closure: @Sendable () -> Double { { [self] in self.read() } }
}
