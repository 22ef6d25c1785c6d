import Foundation

/// Where the benchmark finds the `isobar` binary and the fixtures.
enum Paths {
    /// The directory of this executable (`.build/release` or `.build/debug`).
    static var executableDirectory: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    /// `isobar` next to `isobar-bench`, unless overridden.
    static func isobar(_ override: String?) -> String {
        override ?? executableDirectory + "/isobar"
    }

    /// This program, for running its own `pass-through` subcommand as a stage.
    static var bench: String { executableDirectory + "/isobar-bench" }

    static let defaultWorld = "Fixtures/world-stations.csv"

    /// A fresh scratch directory for logs.
    static func scratch(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "isobar-bench-\(name)-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
