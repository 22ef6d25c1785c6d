import IsobarCore
import Logging

/// Opening, checking and recovering: what `StoreKeeper` does when the disk under the store fails.
extension StoreKeeper {
    // MARK: - Opening

    /// Opens `path` for writing; a damaged file is moved aside and a fresh store created; a file
    /// that cannot be written is opened for reading (`fallback`).
    static func open(_ path: String, keep: Int, now: Double, logger: Logger, reports: inout [String]) throws(StoreError) -> State {
        try DataDirectory.create(parentOf: path)
        do {
            return try writable(path, keep: keep)
        } catch .corrupt(_, let detail) {
            let salvaged = salvage(path, keep: keep)
            let aside = try Quarantine.moveAside(path, now: now)
            let fresh: String
            if salvaged.isEmpty {
                fresh = "a fresh, empty store was created"
            } else {
                fresh = "a fresh store was created with the latest snapshot of each day that still reads whole ("
                    + salvaged.map { "\($0.id), \($0.stations.count) stations" }.joined(separator: "; ") + ")"
            }
            let message = "the database \(path) is damaged (\(detail)): moved aside to \(aside) (salvage it with "
                + "`sqlite3 \(aside) .recover`); " + fresh
            logger.error("\(message)")
            reports.append(message)
            let state: State
            do { state = try writable(path, keep: keep) } catch { return try fallback(path, keep: keep, error, logger: logger, reports: &reports) }
            if case .writable(let store, _) = state {
                for snapshot in salvaged {
                    _ = try? store.save(day: snapshot.day, id: snapshot.id, stations: snapshot.stations,
                                        fetchedAt: snapshot.fetchedAt, storedAt: snapshot.storedAt)
                }
            }
            return state
        } catch {
            return try fallback(path, keep: keep, error, logger: logger, reports: &reports)
        }
    }

    /// The latest snapshot of each day that still reads whole from a damaged file (a damaged page
    /// elsewhere, a wrong free-page count in the header), so a restart after damage does not
    /// have to begin empty. Random bytes all over leave nothing: then nothing is salvaged.
    static func salvage(_ path: String, keep: Int) -> [StoredSnapshot] {
        guard let damaged = try? SnapshotStore(readingOnly: path, keep: keep, salvaging: true) else { return [] }
        defer { try? damaged.close() }
        return Day.allCases.compactMap { day in try? damaged.latest(day: day) }
    }

    /// The store open for writing, with its file as it is now.
    static func writable(_ path: String, keep: Int) throws(StoreError) -> State {
        let store = try SnapshotStore(path: path, keep: keep)
        switch StoreFile.inspect(path) {
        case .success(let file): return .writable(store, file: file)
        case .failure(let fault): throw .corrupt(path: path, detail: fault.description)
        }
    }

    /// The file cannot be opened for writing: read it if it can be read. A read-only file or file
    /// system stays read-only for the run; anything else (a full disk) is retried.
    private static func fallback(_ path: String, keep: Int, _ error: StoreError, logger: Logger,
                                 reports: inout [String]) throws(StoreError) -> State {
        let readable = try? SnapshotStore(readingOnly: path, keep: keep)
        let message: String
        let state: State
        switch error {
        case .incompatible, .invalidArgument, .cannotCreateDirectory:
            throw error
        case .cannotOpen(_, let reason), .readOnly(_, let reason):
            guard let readable else { throw error }  // neither written nor read: nothing to serve
            message = "the database \(path) can only be read (\(reason)): its snapshots are served, and nothing new "
                + "will be stored until it is writable and persist restarts (the latest arrival of each day is served from memory)"
            state = .readOnly(readable, reason: .readOnly(path: path, reason: reason))
        case .diskFull, .failed, .corrupt:
            message = "the database \(path) cannot be opened for writing (\(error)). "
                + (readable == nil ? "Nothing stored can be read either. " : "What it holds is served. ")
                + "The latest snapshot of each day that arrives is kept in memory, served, and stored once the "
                + "file can be opened again (tried at each arrival)"
            if let readable {
                state = .retrying(readable, reason: error)
            } else {
                state = .retrying(try SnapshotStore.empty(standingFor: path, keep: keep), reason: error)
            }
        }
        logger.error("\(message)")
        reports.append(message)
        return state
    }

    /// Tries again to open the file for writing (after a full disk at start); a failure changes
    /// nothing and is not reported again.
    mutating func reopen() {
        guard case .retrying(let old, let reason) = state, let next = try? Self.writable(path, keep: keep) else { return }
        try? old.close()
        state = next
        logger.info("the store can be written again", metadata: ["path": "\(path)", "was": "\(reason)"])
    }

    // MARK: - Writing

    /// One write on the store, with the file checked before and after it. Returns nil when it was
    /// not written; a damaged file is recovered from (unless `recovering` is false, as during a
    /// recovery), a lasting failure is reported once.
    mutating func write(now: Double, _ operation: String, recovering: Bool = true,
                        _ body: (SnapshotStore) throws(StoreError) -> SaveOutcome) -> SaveOutcome? {
        if case .retrying = state { reopen() }
        guard case .writable(let store, let before) = state else { return nil }
        if let before, let fault = Self.check(path, against: before) {
            guard recovering else { return nil }
            recover(from: fault.description, now: now)
            return write(now: now, operation, recovering: false, body)
        }
        let outcome: SaveOutcome
        do {
            outcome = try body(store)
        } catch .corrupt(_, let detail) {
            guard recovering else { return nil }
            recover(from: "SQLite reports it damaged: \(detail)", now: now)
            return write(now: now, operation, recovering: false, body)
        } catch .cannotOpen(_, let reason), .readOnly(_, let reason) {
            state = .readOnly(store, reason: .readOnly(path: path, reason: reason))
            report("the database \(path) became read-only (\(reason)): \(operation) failed, and nothing new will be stored "
                + "until it is writable and persist restarts (the latest arrival of each day is served from memory)")
            return nil
        } catch {
            if failing == nil { report("\(operation) failed: \(error)") }
            failing = error
            return nil
        }
        if let before {
            switch StoreFile.inspect(path) {
            case .success(let after) where before.fault(comparedWith: after) == nil:
                state = .writable(store, file: after)
            case .success(let after):
                if recovering { recover(from: before.fault(comparedWith: after)?.description ?? "", now: now) }
                return outcome
            case .failure(let fault):
                if recovering { recover(from: fault.description, now: now) }
                return outcome
            }
        }
        if let cleared = failing {
            failing = nil
            logger.info("the store can be written again", metadata: ["path": "\(path)", "was": "\(cleared)"])
        }
        return outcome
    }

    static func check(_ path: String, against before: StoreFile) -> StoreFile.Fault? {
        switch StoreFile.inspect(path) {
        case .success(let now): return before.fault(comparedWith: now)
        case .failure(let fault): return fault
        }
    }

    // MARK: - Recovering

    /// The file was damaged under the store: move it aside, open a fresh one, and store the latest
    /// snapshot of each day from memory into it.
    mutating func recover(from fault: String, now: Double) {
        try? store.close()
        var opened: [String] = []
        do {
            let aside = try Quarantine.moveAside(path, now: now)
            report("the database \(path) was damaged while persist ran (\(fault)): moved aside to \(aside); "
                + "a fresh store now holds the latest snapshot of each day, from memory")
            state = try Self.open(path, keep: keep, now: now, logger: logger, reports: &opened)
        } catch {
            report("the damaged database \(path) could not be replaced (\(error)): the latest snapshot of each day is "
                + "served from memory, and storing is retried")
            let standIn = (try? SnapshotStore.empty(standingFor: path, keep: keep))
            if let standIn { state = .retrying(standIn, reason: error) }
        }
        reports += opened
        unsaved = latest
        flushUnsaved(now: now)
    }
}
