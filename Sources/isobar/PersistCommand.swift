import ArgumentParser
import IsobarCore
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
    @Option(help: "Replay on a bare resync at most once per this many seconds; requests in between are dropped and counted.")
    var resyncInterval = ResyncInterval.defaultSeconds
    @OptionGroup var snapshotPolicy: SnapshotPolicyArguments

    func run() throws {
        Logs.bootstrap()
        var options = PersistOptions(dataDirectory: dataDir, keep: keep, replayOnStart: !noReplay)
        if let database { options.databasePath = database }
        guard resyncInterval.isFinite, resyncInterval >= 0 else {
            throw ValidationError("--resync-interval must be zero or a positive number of seconds, not \(resyncInterval)")
        }
        options.resyncInterval = resyncInterval
        options.snapshotPolicy = snapshotPolicy.policy
        throw ExitCode(runPersist(options, logger: Logger(label: "persist")))
    }
}
