import Foundation
import Logging

/// The readiness line every long-running isobar process writes when it can do its work, so
/// tests, scripts and probes wait for one thing instead of a process's log wording:
///
///     2026-11-23T21:48:07Z notice broker: ready: publishers connect to tcp://…, subscribers to tcp://…
///
/// that is, a `notice` whose message starts with `ready: `. Who says it, and when:
/// `broker` once both endpoints are bound; `plug` each time its command has started (its
/// sockets are connected and subscribed before); a built-in stage with `--bus` once its sockets
/// have had `BusStage.settle` to connect and its first words are out; `up` once every process was started;
/// `gateway` once it listens (with its URL). With `ISOBAR_READY_FILE` set, the same text is
/// also written to that file, for a container's exec readiness probe (`test -s FILE`), and a
/// plug removes it while its command is not running (`withdraw`). A process passes the
/// variable to its children empty: the file is its own.
public enum Readiness {
    /// The environment variable naming the readiness file.
    public static let fileVariable = "ISOBAR_READY_FILE"
    /// What a readiness message starts with.
    public static let prefix = "ready: "

    /// Logs the readiness line and writes the readiness file, if one is asked for.
    public static func announce(_ logger: Logger, _ what: String) {
        // The file first, so whoever saw the line finds the file.
        if let path = ProcessInfo.processInfo.environment[fileVariable], !path.isEmpty {
            // Best effort: a probe that cannot see the file keeps the process out of service,
            // which is the safe side; the log line says the same either way.
            _ = FileManager.default.createFile(atPath: path, contents: Data((what + "\n").utf8))
        }
        logger.notice("\(prefix)\(what)")
    }

    /// Removes the readiness file (a plug whose command exited, until it runs again).
    public static func withdraw() {
        if let path = ProcessInfo.processInfo.environment[fileVariable], !path.isEmpty {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
