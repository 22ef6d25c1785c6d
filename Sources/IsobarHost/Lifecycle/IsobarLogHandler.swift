import Foundation
import Logging
import IsobarStdio

/// isobar's log lines on stderr: `TIME LEVEL LABEL: MESSAGE key=value …`, one line each.
///
/// The label is the process's role (`broker`, `up`, a plug's stage name), so messages never
/// repeat it, and the swift-log `source` (the Swift module) is left out: under `isobar up`, whose
/// supervisor prefixes every child's line with its name, a plug's line reads
/// `persist | 2026-11-23T21:08:07Z info persist: started …` instead of naming persist four times.
/// Metadata (the logger's and the call's) follows the message as sorted `key=value` pairs.
public struct IsobarLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let output: LineOutput

    public init(label: String, level: Logger.Level = .info, output: LineOutput = .standardError) {
        self.label = label
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = Self.timestamp() + " \(event.level) \(label): \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { _, call in call }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        output.write(Array(line.utf8) + [0x0A])
        output.flush()
    }

    /// UTC, to the second: `2026-11-23T21:08:07Z`.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
