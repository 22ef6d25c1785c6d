#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import IsobarCore
import IsobarStdio
import Logging

/// Runs `isobar persist`: opens the store, replays it (unless disabled), then handles stdin until
/// end of file. Returns the process exit status: 0 at end of input, 1 when the store cannot be
/// opened at all (a data directory that cannot be created, a foreign SQLite file, a path that can
/// be neither written nor read) or fails beyond repair while running (the reason goes to stderr in
/// one line), 2 for invalid options. A damaged file, a read-only one and a full disk do not stop
/// it (`StoreKeeper`).
public func runPersist(_ options: PersistOptions, logger: Logger) -> Int32 {
    LineOutput.ignoreSIGPIPE()
    guard options.keep >= 1 else {
        printError("--keep must be at least 1 (snapshots kept per day), not \(options.keep)")
        return 2
    }
    var stage: PersistStage
    do {
        let keeper = try StoreKeeper(path: options.databasePath, keep: options.keep, logger: logger, now: SnapshotStore.now())
        stage = try PersistStage(keeper: keeper, logger: logger, policy: options.snapshotPolicy, resyncInterval: options.resyncInterval)
    } catch {
        printError(error.description)
        return 1
    }
    logger.info("store opened", metadata: [
        "path": "\(options.databasePath)", "keep": "\(options.keep)", "mode": "\(stage.keeper.mode)",
    ])

    let output = LineOutput.standardOutput
    var writer = JSONWriter(capacity: 64 * 1024)
    if options.replayOnStart {
        stage.replay(into: &writer)
        output.write(&writer)
        output.flush()
    }
    if let error = stage.fatalStoreError { printError(error.description); return 1 }

    LineInput.runStage(stage: PersistStage.name, output: output) { line, writer in
        stage.handle(line, into: &writer)
        if let error = stage.fatalStoreError {
            // Writing on into a damaged file could only make it worse: stop, and let a supervisor's
            // restart report the file at open.
            output.write(&writer)
            output.flush()
            printError(error.description)
            exit(1)
        }
    }
    do {
        try stage.store.close()
    } catch {
        printError(error.description)
        return 1
    }
    return 0
}

/// One line on stderr, whatever the logging configuration: the reason the process exits non-zero.
private func printError(_ message: String) {
    let line = Array("isobar persist: error: \(message)\n".utf8)
    line.withUnsafeBytes { raw in _ = write(2, raw.baseAddress, raw.count) }
}
