import IsobarCore
import Logging

/// The persist stage's line handling, separate from stdin and stdout so tests can drive it.
///
/// Consumes `station`, `snapshot` and `resync` messages; every other type passes through
/// unchanged (stages compose in a plain pipe). Complete snapshots go to the `SnapshotStore`; an
/// incomplete one is never stored and reported with one `error` line. A resync request without a
/// `client` republishes the latest stored snapshot of each day with source `store`.
///
/// The store sits behind a `StoreKeeper`: a damaged, read-only or full file never stops the
/// stage, and replays come from the newest snapshot of each day it holds in memory.
///
/// Snapshots already in the store are recognised by id from the first station line on and never
/// assembled again, so the persister's own replays coming back to it over the bus cost a parse per
/// line and nothing else.
public struct PersistStage: Sendable, Stage {
    public static let name = "persist"
    /// Persist in the table of message types (``Stage/subscriptions``: snapshots and resyncs).
    public static let party = Party.persist

    /// The store, kept usable across faults of the disk under it (`StoreKeeper`).
    public private(set) var keeper: StoreKeeper
    public var store: SnapshotStore { keeper.store }
    private let logger: Logger
    private let clock: @Sendable () -> Double
    private var assembler = SnapshotAssembler()
    /// id -> fetchedAt of every stored snapshot, per day (at most `keep` each).
    private var stored: [Day: [String: Double]] = [:]
    /// Set when the store failed in a way that makes it unusable; the runner stops on it.
    public private(set) var fatalStoreError: StoreError?
    /// The plausibility rule shared with the filter (future `fetchedAt`, shrunk snapshots).
    public private(set) var acceptance: SnapshotAcceptance
    /// Rank and station count of each day's latest stored snapshot: what a new one is judged against.
    private var held: [Day: (rank: SnapshotRank, count: Int)] = [:]
    /// Bare resyncs are honoured at most once per `resyncInterval` seconds; the rest are dropped.
    private var resyncGate: ResyncInterval

    /// `clock` gives Unix seconds; it decides ages on replay and `fetchedAt` for end markers that
    /// have none.
    public init(store: SnapshotStore, logger: Logger, clock: @escaping @Sendable () -> Double = SnapshotStore.now,
                policy: SnapshotPolicy = SnapshotPolicy(), resyncInterval: Double = ResyncInterval.defaultSeconds) throws(StoreError) {
        try self.init(keeper: StoreKeeper(store: store, logger: logger), logger: logger, clock: clock,
                      policy: policy, resyncInterval: resyncInterval)
    }

    public init(keeper: StoreKeeper, logger: Logger, clock: @escaping @Sendable () -> Double = SnapshotStore.now,
                policy: SnapshotPolicy = SnapshotPolicy(), resyncInterval: Double = ResyncInterval.defaultSeconds) throws(StoreError) {
        self.keeper = keeper
        self.logger = logger
        self.clock = clock
        self.acceptance = SnapshotAcceptance(policy: policy)
        self.resyncGate = ResyncInterval(seconds: resyncInterval)
        for day in Day.allCases {
            try reloadStored(day)
            if let latest = keeper.latest(day: day) {
                held[day] = (SnapshotRank(fetchedAt: latest.fetchedAt, snapshot: latest.id), latest.stations.count)
            }
        }
    }

    /// Bare resync requests dropped so far by the interval (see `ResyncInterval`).
    public var droppedResyncs: Int { resyncGate.dropped }

    // MARK: - Input

    /// Handles one input line, appending any output lines to `writer`.
    public mutating func handle(_ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        let object: JSONObject
        let type: String
        do {
            object = try JSONObject(parsing: line)
        } catch {
            reject("not a JSON object: \(error)", line, into: &writer)
            return
        }
        do {
            type = try object.requireName("type", maxLength: .max)
        } catch {
            reject(error.description, line, into: &writer)
            return
        }
        if keeper.needsRetry { keeper.retry(now: clock()) }
        switch type {
        case "station": handleStation(object, line, into: &writer)
        case "snapshot": handleEnd(object, line, into: &writer)
        case "resync": handleResync(object, line, into: &writer)
        default:
            writer.raw(UnsafeRawBufferPointer(rebasing: line[...]))
            writer.newline()
        }
        writeReports(into: &writer)
    }

    /// Writes the latest stored snapshot of each day, as the store's replay at the clock's now.
    public mutating func replay(into writer: inout JSONWriter) {
        let now = clock()
        writeReports(into: &writer)
        for day in Day.allCases {
            guard let snapshot = keeper.latest(day: day) else { continue }
            if let ahead = acceptance.policy.futureExcess(fetchedAt: snapshot.fetchedAt, now: now) {
                // Stored before the rule (or under a clock since set back): every filter would
                // refuse it, so it is not replayed.
                let message = "stored \(day.rawValue) snapshot \(snapshot.id) was fetched \(Int(ahead.rounded())) s in the future; not replayed"
                logger.error("\(message)")
                ErrorMessage(stage: Self.name, message: message, excerpt: "").write(to: &writer)
                continue
            }
            snapshot.write(now: now, into: &writer)
            logger.info("replayed snapshot from the store", metadata: [
                "day": "\(day.rawValue)", "snapshot": "\(snapshot.id)", "stations": "\(snapshot.stations.count)",
                "ageSeconds": "\(Int(max(0, now - snapshot.fetchedAt)))",
            ])
        }
    }

    private mutating func handleStation(_ object: JSONObject, _ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        do {
            let message = try StationMessage(from: object)
            if stored[message.day]?[message.snapshot] != nil { return }
            try assembler.add(message)
        } catch {
            reject("invalid station message: \(error)", line, into: &writer)
        }
    }

    private mutating func handleEnd(_ object: JSONObject, _ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        var end: SnapshotEnd
        do {
            end = try SnapshotEnd(from: object)
        } catch {
            reject("invalid snapshot end marker: \(error)", line, into: &writer)
            return
        }
        if object.field("fetchedAt").map({ $0.kind == .null }) ?? true {
            end.fetchedAt = clock()  // no fetch time given: it is as fresh as its arrival
        }
        let name = "snapshot \(end.snapshot) (\(end.day.rawValue))"
        if let ahead = acceptance.checkClock(end, now: clock()) {
            assembler.discard(end.snapshot)
            let message = acceptance.futureMessage(end, ahead: ahead)
            logger.error("\(message)")
            reject(message + "; not stored", line, into: &writer)
            return
        }
        if let storedFetchedAt = stored[end.day]?[end.snapshot] {
            assembler.discard(end.snapshot)
            guard end.fetchedAt > storedFetchedAt else { return }
            refresh(end, line, into: &writer)
            return
        }
        let outcome = acceptance.complete(end, assembler: &assembler)
        if case .complete(let stations) = outcome,
           case .hold(let count, let heldCount) = acceptance.judge(end, stations: stations, held: held[end.day]?.count) {
            let message = acceptance.holdMessage(end, count: count, held: heldCount)
            logger.warning("\(message)")
            reject(message + "; not stored yet", line, into: &writer)
            return
        }
        switch outcome {
        case .complete(let stations) where stations.isEmpty:
            reject("\(name) has no stations; not stored (the store keeps the last snapshot with data)", line, into: &writer)
        case .complete(let stations):
            save(end, stations: stations, line, into: &writer)
        case .incomplete(let received, let expected):
            reject("\(name) is incomplete: \(received) of \(expected) stations arrived; not stored", line, into: &writer)
        case .unknown:
            reject("\(name): none of its \(end.count) stations arrived; not stored", line, into: &writer)
        }
    }

    private mutating func handleResync(_ object: JSONObject, _ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        do {
            let request = try Resync(from: object)
            guard request.client == nil else { return }  // a client's resync is the filter's business
            guard resyncGate.admit(now: clock()) else {
                if resyncGate.dropped & (resyncGate.dropped - 1) == 0 {
                    logger.warning("resync requests beyond one per \(resyncGate.seconds) s dropped: \(resyncGate.dropped) so far")
                }
                return
            }
            logger.debug("resync requested", metadata: ["reason": "\(request.reason)"])
            replay(into: &writer)
        } catch {
            reject("invalid resync request: \(error)", line, into: &writer)
        }
    }

    // MARK: - Storing

    private mutating func save(_ end: SnapshotEnd, stations: [Station], _ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        let now = clock()
        let outcome = keeper.save(StoredSnapshot(day: end.day, id: end.snapshot, fetchedAt: end.fetchedAt, storedAt: now,
                                                 stations: stations), now: now)
        let metadata: Logger.Metadata = [
            "day": "\(end.day.rawValue)", "snapshot": "\(end.snapshot)", "stations": "\(stations.count)",
        ]
        let rank = SnapshotRank(end)
        if held[end.day].map({ $0.rank < rank }) ?? true { held[end.day] = (rank, stations.count) }
        switch outcome {
        case .stored(let pruned):
            logger.info("stored snapshot", metadata: metadata.merging(["pruned": "\(pruned)"]) { $1 })
        case .alreadyStored:
            logger.debug("snapshot already stored", metadata: metadata)
        case .refreshed:
            logger.info("snapshot fetched again; its fetch time moved forward", metadata: metadata)
        case nil:
            logger.info("snapshot not stored now; held in memory and served", metadata: metadata)
        }
        reloadAllStored(line, into: &writer)
    }

    /// The same content fetched again: only its fetch time moves forward.
    private mutating func refresh(_ end: SnapshotEnd, _ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        keeper.refresh(day: end.day, id: end.snapshot, fetchedAt: end.fetchedAt, now: clock())
        if let current = held[end.day], current.rank.snapshot == end.snapshot {
            held[end.day] = (SnapshotRank(end), current.count)
        }
        logger.info("snapshot fetched again; its fetch time moved forward", metadata: [
            "day": "\(end.day.rawValue)", "snapshot": "\(end.snapshot)",
        ])
        reloadAllStored(line, into: &writer)
    }

    /// What the store holds after a write (a recovery may have replaced the whole file).
    private mutating func reloadAllStored(_ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        for day in Day.allCases {
            do {
                try reloadStored(day)
            } catch {
                fail(error, message: "cannot list the stored \(day.rawValue) snapshots: \(error)",
                     excerpt: LineSplitter.excerpt(line), into: &writer)
            }
        }
    }

    private mutating func reloadStored(_ day: Day) throws(StoreError) {
        var ids: [String: Double] = [:]
        for (id, fetchedAt) in try keeper.storedSnapshots(day: day) { ids[id] = fetchedAt }
        stored[day] = ids
    }

    // MARK: - Errors

    /// The keeper's problems (a damaged file moved aside, a full disk), as `error` lines; they
    /// were logged when they happened.
    private mutating func writeReports(into writer: inout JSONWriter) {
        for message in keeper.takeReports() {
            ErrorMessage(stage: Self.name, message: message, excerpt: "").write(to: &writer)
        }
    }

    private func reject(_ message: String, _ line: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
        ErrorMessage(stage: Self.name, message: message, line: line).write(to: &writer)
    }

    private mutating func fail(_ error: StoreError, message: String, excerpt: String, into writer: inout JSONWriter) {
        logger.error("\(message)")
        ErrorMessage(stage: Self.name, message: message, excerpt: excerpt).write(to: &writer)
        if error.isFatal, fatalStoreError == nil { fatalStoreError = error }
    }
}
