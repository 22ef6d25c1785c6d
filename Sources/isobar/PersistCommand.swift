import ArgumentParser
import IsobarStore
import Logging

struct PersistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "persist",
        abstract: "Store complete snapshots in SQLite and replay the latest on start and on resync.",
        discussion: PersistOptions.helpDiscussion)

    @Option(help: "Data directory holding isobar.sqlite.")
    var dataDir = PersistOptions.defaultDataDirectory
    @Option(help: "SQLite file (overrides --data-dir).")
    var database: String?
    @Option(help: "Complete snapshots kept per day.")
    var keep = 10
    @Flag(help: "Do not replay the stored snapshots at start.")
    var noReplay = false

    func run() throws {
        Logs.bootstrap()
        var options = PersistOptions(dataDirectory: dataDir, keep: keep, replayOnStart: !noReplay)
        if let database { options.databasePath = database }
        throw ExitCode(runPersist(options, logger: Logger(label: "persist")))
    }
}
