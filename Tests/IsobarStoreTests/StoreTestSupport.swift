import Foundation
import IsobarCore
import IsobarStore
import Logging

/// Fixtures, temporary directories and a line driver for the store tests.
enum StoreTestSupport {
    /// The package root: three levels above this file (`Tests/IsobarStoreTests/StoreTestSupport.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The stations of `Fixtures/<day>.json`, parsed exactly as the fetcher does.
    static func fixture(_ day: Day) throws -> [Station] {
        let url = packageRoot.appendingPathComponent("Fixtures/\(day.rawValue).json")
        return try OnXFeed.parse(Array(try Data(contentsOf: url))).stations
    }

    /// A fixture with every known temperature shifted by `step` tenths of a degree, so its content
    /// (and therefore its id) differs per step.
    static func variant(_ stations: [Station], step: Int) -> [Station] {
        stations.map { station in
            var changed = station
            if let temperature = station.temperature { changed.temperature = temperature + Double(step) / 10 }
            return changed
        }
    }

    /// A fresh directory, removed when `body` returns.
    static func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("isobar-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    static let quietLogger = Logger(label: "isobar.store.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Feeds `text` (NDJSON) to `stage` line by line; returns the output lines.
    static func run(_ stage: inout PersistStage, _ text: String) -> [String] {
        var writer = JSONWriter()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            Array(line.utf8).withUnsafeBytes { stage.handle($0, into: &writer) }
        }
        return lines(writer)
    }

    /// Replays `stage`'s store; returns the output lines.
    static func replay(_ stage: inout PersistStage) -> [String] {
        var writer = JSONWriter()
        stage.replay(into: &writer)
        return lines(writer)
    }

    /// The NDJSON lines of a snapshot as the fetcher publishes it.
    static func snapshotText(_ day: Day, _ stations: [Station], fetchedAt: Double, source: SnapshotEnd.Source = .feed,
                             ageSeconds: Double = 0, id: String? = nil) -> String {
        var writer = JSONWriter()
        OnXFeed.writeSnapshot(day: day, stations: stations, source: source, fetchedAt: fetchedAt,
                              ageSeconds: ageSeconds, id: id, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func lines(_ writer: JSONWriter) -> [String] {
        String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The `type` of an output line.
    static func type(_ line: String) -> String? {
        guard let object = try? JSONObject(parsing: line), let field = object.field("type") else { return nil }
        return object.string(field)
    }
}
