/// The region filter: holds the latest complete snapshot of each day and every client's
/// viewport, and tells each client what entered, left or changed in its view.
///
/// Input: `station`, `snapshot`, `viewport`, `select`, `resync`, `lease`, `leave`, `nearest`,
/// `search`, `favorite` (others pass through unchanged). Output: `visible` (per client, full or a
/// diff, with the client's `version`), `selection` (callout data for the client's selected
/// station), `closest`/`matches`, `pinned` (a client's favorites), `tally` (the answer to a
/// gateway's lease), `error`, and `resync` requests when a snapshot arrived incomplete or a
/// client waits for a day with no data. Pure logic: the caller supplies lines and the clock, and
/// calls `tick` a few times a second so timed work happens when no input arrives.
public final class FilterEngine: LineStage {
    /// The filter in the table of message types: it subscribes to what the table says it consumes
    /// (``Stage/subscriptions``). The slashes matter: `select` would also match `selection`, its
    /// own output, which it would pass through and receive again forever.
    public static let party = Party.filter
    /// The missing-day resync schedule and the idle sweep run even when no message arrives.
    public var tickEvery: Double? { 0.25 }
    public let options: FilterOptions
    private var snapshots: [Day: StationSnapshot] = [:]
    private var assembler = SnapshotAssembler()
    /// Reads plain station lines in place (the snapshot load's fast path).
    private var stationReader = StationLineReader()
    /// The plausibility rule shared with persist (future `fetchedAt`, shrunk snapshots).
    public private(set) var acceptance: SnapshotAcceptance
    private let interner = KeyInterner()
    var clients: [String: ClientState] = [:]
    /// The clients hosted by no gateway (plain bus clients that heartbeat themselves): the only
    /// ones the idle sweep looks at one by one while every gateway leases (kept by ``attach``).
    var clientsWithoutGateway: [String: ClientState] = [:]
    /// Clients the idle sweeps looked at one by one, in all (what the tests count).
    private(set) var sweepLooks = 0
    /// Per gateway: its clients' count and digest as this filter sees them, and its lease times.
    var gateways: [String: GatewayTally] = [:]
    /// Viewports refused for claiming a name another gateway hosts (see `checkClaim`).
    public internal(set) var claimsRefused = 0
    /// Days some client was answered for while no snapshot of that day was held.
    private var waitingDays: Set<Day> = []
    private var lastSweep = 0.0
    private var lastResyncRequest = -Double.infinity
    /// Consecutive requests for a snapshot clients wait for (see `requestMissingSnapshot`).
    private var missingSnapshotRequests = 0
    /// The time of the line being handled (the caller's clock), for stamping what is sent.
    var clock = 0.0
    /// Forecasts per cell and the details waiting for one (see FilterEngine+Forecast.swift).
    var forecastBook = ForecastBook()
    /// Where favorites are made durable (see FilterEngine+Favorites.swift).
    let favoritesBacking: any FavoritesBacking
    /// Favorites of the clients that joined or asked, loaded from `favoritesBacking` once each.
    var favoriteLists: [String: FavoriteList] = [:]
    /// The backing failed once: from then on favorites live in memory only.
    var favoritesHealth = FavoritesHealth.healthy
    /// Unix seconds, for staleness (see FilterEngine+Stale.swift).
    let wallClock: @Sendable () -> Double
    /// Stale stations per day at the last check, and when that was (the monotonic clock).
    var staleCounts: [Day: Int] = [:]
    var lastStaleCheck = -Double.infinity
    /// Where the answers to one input go early while they are being written, so a feed change
    /// seen by many clients never holds every client's answer at once: between two clients, once
    /// the writer holds at least `spillBytes`, it is handed here (the caller writes or publishes
    /// its lines and empties it). nil keeps everything in the writer (what the tests read).
    /// Peak output held: `spillBytes` plus one client's answer (docs/security.md, "Limits").
    public var spill: ((inout JSONWriter) -> Void)?
    /// How much answer the writer holds before `spill` takes it (1 MiB).
    public var spillBytes = 1 << 20
    /// `send`'s working arrays, kept between answers.
    private var scratch = AnswerScratch()

    public init(options: FilterOptions = FilterOptions(), favorites: any FavoritesBacking = InMemoryFavorites(),
                wallClock: @escaping @Sendable () -> Double = { WallClock.now() }) {
        self.options = options
        self.acceptance = SnapshotAcceptance(policy: options.snapshotPolicy)
        self.favoritesBacking = favorites
        self.wallClock = wallClock
    }

    public var clientCount: Int { clients.count }
    public func snapshot(for day: Day) -> StationSnapshot? { snapshots[day] }

    /// Handles one input line, appending any output lines to `out`. `now` is any clock in seconds
    /// (only differences are used; `isobar filter` passes a monotonic one).
    public func handle(line: UnsafeRawBufferPointer, now: Double, into out: inout JSONWriter) {
        clock = now
        if receiveStation(line) { sweep(now: now); return }
        // A pan in the shape every Isobar writer gives it, read in place (`Viewport(canonical:)`);
        // any other line (and any error) takes the generic path below.
        if options.shard.isWhole, let viewport = Viewport(canonical: line) {
            do {
                try update(viewport, now: now, into: &out)
            } catch {
                ErrorMessage(stage: Self.stage, error, line: line, client: viewport.client).write(to: &out)
            }
            sweep(now: now)
            return
        }
        let object: JSONObject
        do {
            object = try JSONObject(parsing: line)
        } catch {
            ErrorMessage(stage: Self.stage, message: "not a JSON object: \(error)", line: line, code: .notJSON).write(to: &out)
            return
        }
        do {
            try handle(object, now: now, into: &out)
        } catch {
            ErrorMessage(stage: Self.stage, error, line: line, client: ErrorMessage.client(of: object)).write(to: &out)
        }
        sweep(now: now)
    }

    func handle(_ object: JSONObject, now: Double, into out: inout JSONWriter) throws(MessageError) {
        let type = try object.requireName("type", maxLength: .max)
        guard options.shard.isWhole || serves(type: type, object) else { return }
        switch MessageName(rawValue: type) {
        case .station: try receive(StationMessage(from: object))
        case .snapshot: complete(try SnapshotEnd(from: object), line: Array(object.rawBytes), now: now, into: &out)
        case .viewport: try update(Viewport(from: object), now: now, into: &out)
        case .select: try select(Select(from: object), now: now, into: &out)
        case .resync: try resync(Resync(from: object), now: now, into: &out)
        case .lease: lease(try Lease(from: object), now: now, into: &out)
        case .leave: leave(try Leave(from: object))
        case .nearest: nearest(try NearestRequest(from: object), now: now, into: &out)
        case .search: search(try SearchRequest(from: object), now: now, into: &out)
        case .favorite: try favorite(FavoriteRequest(from: object), now: now, into: &out)
        case .detail: try detail(DetailRequest(from: object), now: now, into: &out)
        case .spot: spot(try Spot(from: object), now: now, into: &out)
        case .forecast: receive(try ForecastMessage(from: object), now: now, into: &out)
        default:
            out.raw(object.rawBytes)
            out.newline()
        }
    }

    /// Whether this shard handles a message: a client's message only when it owns the client; a
    /// client message without a usable client name only on shard 0 (so its error is reported
    /// once); anything else (snapshots, leases, a bare resync) on every shard.
    private func serves(type: String, _ object: JSONObject) -> Bool {
        let isResync = type == MessageName.resync.rawValue
        guard ClientPartition.routedTypes.contains(type) || isResync else { return true }
        guard let client = ErrorMessage.client(of: object) else {
            return isResync && object.field("client") == nil ? true : options.shard.index == 0
        }
        return options.shard.owns(client: client)
    }

    /// Registers a viewport directly (the `--viewport` flag), without emitting anything until
    /// there is data to show.
    /// Such a client is pinned: it never idles out.
    public func register(_ viewport: Viewport) {
        clients[viewport.client] = ClientState(viewport: viewport, now: .infinity)
    }

    /// Timed work, called by the host a few times a second whatever the input: asks again for a
    /// day's snapshot clients wait for (on its backoff schedule) and forgets idle clients.
    public func tick(now: Double, into out: inout JSONWriter) {
        clock = now
        for day in Day.allCases where waitingDays.contains(day) {
            if snapshots[day] == nil {
                requestMissingSnapshot(day, now: now, into: &out)
            } else {
                waitingDays.remove(day)
            }
        }
        checkStaleness(now: now, into: &out)
        sweep(now: now)
    }

    // MARK: - Snapshots

    private func receive(_ message: StationMessage) throws(MessageError) {
        if snapshots[message.day]?.id == message.snapshot { return }  // a replay of what we hold
        try assembler.add(message)
    }

    /// A plain station line read in place (`StationLineReader`), as `receive` would take it from
    /// the general path; false for any other line, which the general path then reads.
    private func receiveStation(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let read = stationReader.read(line, maxSeq: assembler.maxStations) else { return false }
        let snapshot = UnsafeRawBufferPointer(rebasing: line[read.snapshot])
        if let held = snapshots[read.day] {
            if IDBytes.equal(held.id, snapshot) { return true }  // a replay of what we hold
            // `==` on a non-ASCII id may equal other bytes (canonical equivalence): the general path decides.
            guard held.id.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        }
        assembler.add(read.station, seq: read.seq, snapshot: snapshot)
        return true
    }

    private func complete(_ end: SnapshotEnd, line: [UInt8], now: Double, into out: inout JSONWriter) {
        if let ahead = acceptance.checkClock(end, now: wallClock()) {
            assembler.discard(end.snapshot)
            if options.shard.index == 0 {
                line.withUnsafeBytes { raw in
                    ErrorMessage(stage: Self.stage, message: acceptance.futureMessage(end, ahead: ahead), line: raw).write(to: &out)
                }
            }
            return
        }
        if let current = snapshots[end.day] {
            if current.id == end.snapshot {
                // The content we hold. A replay (the store's copy, a second publisher) changes
                // nothing a client sees; the same content fetched again later moves its age.
                assembler.discard(end.snapshot)
                guard end.fetchedAt > current.fetchedAt else { return }
                current.refresh(source: end.source, fetchedAt: end.fetchedAt, ageSeconds: end.ageSeconds)
                for client in clients.values where client.viewport.day == end.day {
                    send(client, full: false, forceMessage: true, into: &out)
                }
                return
            }
            if SnapshotRank(end) < SnapshotRank(fetchedAt: current.fetchedAt, snapshot: current.id) {
                // Older than what we hold (a replay of stored data after a newer fetch): newest wins.
                assembler.discard(end.snapshot)
                return
            }
        }
        let outcome = acceptance.complete(end, assembler: &assembler)
        switch consume outcome {
        case .complete(let stations):
            if case .hold(let count, let held) = acceptance.judge(end, stations: stations, held: snapshots[end.day]?.stations.count) {
                if options.shard.index == 0 {
                    StatusMessage(day: end.day, state: .held, url: "", reason: acceptance.holdMessage(end, count: count, held: held)).write(to: &out)
                }
                return
            }
            let snapshot = StationSnapshot(end: end, stations: consume stations, interner: interner,
                                           itemByteLimit: options.itemCacheBytes)  // laid out in place, not copied
            snapshots[end.day] = snapshot
            staleCounts[end.day] = nil  // counted afresh on the next tick
            if let first = snapshot.duplicateIDs.first {
                ErrorMessage(stage: Self.stage,
                             message: "snapshot \(end.snapshot) repeats \(snapshot.duplicateIDs.count) station id(s) (first \"\(first)\"); kept the first of each",
                             excerpt: "").write(to: &out)
            }
            missingSnapshotRequests = 0
            waitingDays.remove(end.day)
            for client in clients.values where client.viewport.day == end.day {
                // Always a message: a new snapshot with no visible change still moves the
                // client's snapshot id and data age.
                send(client, full: client.shownSnapshot == nil, forceMessage: true, into: &out)
                refreshSelection(client, onlyIfChanged: true, into: &out)
                spillIfLarge(&out)
            }
            // Favorites show both days: any client's list may have changed.
            refreshFavorites(favoriteLists.keys.filter { clients[$0] != nil }.sorted(), reason: "updated", into: &out)
        case .incomplete(let received, let expected):
            line.withUnsafeBytes { raw in
                ErrorMessage(stage: Self.stage,
                             message: "snapshot \(end.snapshot) of \(end.day.rawValue) is incomplete (\(received) of \(expected) stations); kept the previous one and asked for a resync",
                             line: raw).write(to: &out)
            }
            requestResync(reason: "incomplete snapshot \(end.snapshot)", now: now, into: &out)
        case .unknown:
            requestResync(reason: "end marker for unseen snapshot \(end.snapshot)", now: now, into: &out)
        }
    }

    /// Hands the writer to `spill` once it holds `spillBytes` (called between whole answers).
    func spillIfLarge(_ out: inout JSONWriter) {
        if let spill, out.bytes.count >= spillBytes { spill(&out) }
    }

    /// Publishes a `resync` for the publishers, at most one per `interval` seconds.
    @discardableResult
    private func requestResync(reason: String, now: Double, interval: Double? = nil, into out: inout JSONWriter) -> Bool {
        guard now - lastResyncRequest >= interval ?? options.resyncInterval else { return false }
        lastResyncRequest = now
        Resync(reason: reason).write(to: &out)
        return true
    }

    /// Asks for a day's snapshot that clients are waiting for: at first like any resync, then
    /// less and less often while it still does not come (a feed down for hours must not make
    /// the publishers replay everything every second), back to normal once a snapshot completes.
    private func requestMissingSnapshot(_ day: Day, now: Double, into out: inout JSONWriter) {
        let interval = options.resyncInterval * Double(1 << min(missingSnapshotRequests, 6))
        if requestResync(reason: "no \(day.rawValue) snapshot yet", now: now, interval: interval, into: &out) {
            missingSnapshotRequests += 1
        }
    }

    // MARK: - Clients

    private func update(_ viewport: Viewport, now: Double, into out: inout JSONWriter) throws(MessageError) {
        try checkClaim(viewport, now: now)
        let hasData = snapshots[viewport.day] != nil
        // A client is looking but we have nothing for its day: the snapshot (or our start-up
        // request) may have been lost before the bus connections settled. Ask again (rate-limited).
        if !hasData {
            requestMissingSnapshot(viewport.day, now: now, into: &out)
        }
        if let gateway = viewport.gateway { gateways[gateway, default: GatewayTally()].lastViewportAt = now }
        guard let client = clients[viewport.client] else {
            makeRoom()
            let client = ClientState(viewport: viewport, now: now)
            // A client that reports a version holds a set from an earlier filter (this one
            // restarted): versions go on from there, never back to 1.
            client.version = viewport.version ?? 0
            clients[viewport.client] = client
            attach(client, to: viewport.gateway, ref: viewport.ref ?? 0)
            joinFavorites(client, into: &out)
            if !hasData && viewport.version != nil {
                // It shows something: keep it until there is data to answer with (no blank map).
                waitingDays.insert(viewport.day)
                return
            }
            send(client, full: true, forceMessage: true, into: &out)
            return
        }
        let old = client.viewport
        client.viewport = viewport
        client.lastSeen = now
        if client.gateway != viewport.gateway || (viewport.ref.map { $0 != client.ref } ?? false) {
            attach(client, to: viewport.gateway, ref: viewport.ref ?? client.ref)
        }
        let reported = viewport.version
        if let reported, reported > client.version {
            // Ahead of us: the client holds a set from an earlier filter. Go on from its version,
            // and (once there is data) replace what it holds.
            setVersion(client, reported)
            client.shownSnapshot = nil
            guard hasData else { waitingDays.insert(viewport.day); return }
            client.lostAnswerResends = 0
            send(client, full: true, forceMessage: true, into: &out)
            refreshSelection(client, onlyIfChanged: false, into: &out)
            return
        }
        if reported == 0 {
            // The client's set is broken (a gap it could not repair): a full set at once.
            guard hasData else { waitingDays.insert(viewport.day); return }
            client.lostAnswerResends = 0
            send(client, full: true, forceMessage: true, into: &out)
            refreshSelection(client, onlyIfChanged: false, into: &out)
            return
        }
        if viewport.showsSame(as: old), reported != nil || client.shownSnapshot != nil {
            // A heartbeat (or a repeat): the set cannot have changed, since snapshot changes are
            // pushed as they complete. Only a lost answer needs anything: the whole set again.
            // (A repeat without a version before any data was shown still gets its full, empty
            // answer below: it is how a client that lost that first answer learns it is known.)
            guard let have = reported else { return }
            if have == client.version {
                client.lostAnswerResends = 0
            } else if now - client.sentAt >= options.lostAnswerGrace * Double(1 << min(client.lostAnswerResends, 6)) {
                // Each resend that still does not arrive (an answer too big for a line limit on
                // the way, a client that cannot apply it) doubles the wait, up to 64x the grace:
                // never a full set per heartbeat forever.
                client.lostAnswerResends += 1
                send(client, full: true, forceMessage: true, into: &out)
                refreshSelection(client, onlyIfChanged: false, into: &out)
            }
            return
        }
        let restyled = old.day != viewport.day || old.presentation != viewport.presentation
        send(client, full: restyled || client.shownSnapshot == nil, into: &out)
        refreshSelection(client, onlyIfChanged: !restyled, into: &out)
        if old.presentation != viewport.presentation { refreshFavorites([viewport.client], reason: "updated", into: &out) }
    }

    private func select(_ select: Select, now: Double, into out: inout JSONWriter) throws(MessageError) {
        guard let client = clients[select.client] else {
            throw MessageError("client \"\(select.client)\" has no viewport yet; send a viewport before select")
        }
        client.lastSeen = now
        guard let id = select.id else {
            if case .selected(let previous, _) = client.selection {
                client.selection = .none
                writeSelection(client, id: previous, station: nil, reason: "cleared", into: &out)
            }
            return
        }
        let known = snapshots.values.contains { $0.position(of: id) != nil }
        guard known else { throw MessageError("unknown station \"\(id)\"") }
        client.selection = .selected(id: id, fingerprint: nil)
        refreshSelection(client, onlyIfChanged: false, into: &out)
    }

    private func resync(_ request: Resync, now: Double, into out: inout JSONWriter) throws(MessageError) {
        // A request without a client is for the snapshot publishers (persist, fetch), not for us.
        guard let name = request.client else { return }
        guard let client = clients[name] else { throw MessageError("client \"\(name)\" has no viewport; send a viewport") }
        client.lastSeen = now
        send(client, full: true, forceMessage: true, into: &out)
        refreshSelection(client, onlyIfChanged: false, into: &out)
        refreshFavorites([name], reason: "resync", force: true, into: &out)
    }

    /// Computes the client's visible set and sends it in full, or as the difference from what the
    /// client holds. Sends nothing when nothing changed (unless `forceMessage`).
    func send(_ client: ClientState, full: Bool, forceMessage: Bool = false, into out: inout JSONWriter) {
        let snapshot = snapshots[client.viewport.day]
        let threshold = staleThreshold()
        var upsertClusters: [Cluster] = []
        // The engine's working arrays, taken for this answer (left unshared, so they are written in
        // place) and handed back emptied at the end.
        var scratch = self.scratch
        self.scratch = AnswerScratch()
        defer {
            scratch.empty()
            self.scratch = scratch
        }
        var items = VisibleItems()
        if let snapshot {
            items = Clusterer.items(in: client.viewport.region, of: snapshot, limit: client.viewport.limit)
            scratch.entries.reserveCapacity(items.total)
            let keys = snapshot.keys, fingerprints = snapshot.fingerprints  // one retain, not one per station
            let uniform = uniformStaleness(snapshot, threshold: threshold)
            for (n, position) in items.stations.enumerated() {
                var fingerprint = fingerprints[Int(position)]
                if uniform ?? isStale(snapshot, position: Int(position), threshold: threshold) { fingerprint ^= Self.staleSalt }
                scratch.entries.append(.init(key: keys[Int(position)], fingerprint: fingerprint, index: Int32(n)))
            }
            for (n, cluster) in items.clusters.enumerated() {
                scratch.entries.append(.init(key: cluster.key, fingerprint: cluster.fingerprint, index: Int32(items.stations.count + n)))
            }
        }
        // Stations in the order the grid gave them, then clusters; removals ascending by key, so
        // two runs of the same input give the same bytes. A set of stations only is diffed by
        // snapshot position when the client's was from the same snapshot (`ShownSet`).
        scratch.changed.append(contentsOf: repeatElement(false, count: items.total))
        client.shown.replace(with: &scratch.entries, stations: items.clusters.isEmpty ? items.stations : nil, ascending: items.stationsAscending,
                             of: snapshot, full: full, changed: &scratch.changed, removed: &scratch.removed)
        for (n, position) in items.stations.enumerated() where scratch.changed[n] { scratch.upserts.append(position) }
        let base = items.stations.count
        for (n, cluster) in items.clusters.enumerated() where scratch.changed[base + n] { upsertClusters.append(cluster) }
        client.shownSnapshot = snapshot?.id
        if snapshot == nil { waitingDays.insert(client.viewport.day) }
        guard full || forceMessage || !scratch.upserts.isEmpty || !upsertClusters.isEmpty || !scratch.removed.isEmpty else { return }
        setVersion(client, client.version + 1)
        client.sentAt = clock
        writeVisible(client, snapshot: snapshot, full: full, stations: scratch.upserts, clusters: upsertClusters, removed: scratch.removed,
                     staleThreshold: threshold, into: &out)
    }

    private func writeVisible(_ client: ClientState, snapshot: StationSnapshot?, full: Bool, stations: [Int32],
                              clusters: [Cluster], removed: [UInt64], staleThreshold threshold: Double?, into out: inout JSONWriter) {
        if let defaults = options.chainedFormat {
            writeAnnotations(client, snapshot: snapshot, full: full, stations: stations, clusters: clusters, removed: removed,
                             staleThreshold: threshold, defaults: defaults, into: &out)
            return
        }
        let viewport = client.viewport
        // The head and tail typed; the items streamed in place between them (the same bytes as
        // `Visible.write` with `Visible.Item`s, without building them).
        let head = Visible(client: viewport.client, version: client.version, full: full, day: viewport.day, snapshot: .none,
                           presentation: viewport.presentation)
        if let snapshot { head.writeHead(to: &out, provenance: snapshot.infoMembers) } else { head.writeHead(to: &out) }
        if let snapshot {
            let uniform = uniformStaleness(snapshot, threshold: threshold)
            let fetchedAt = snapshot.fetchedAt
            let itemBytes = snapshot.itemBytes
            // Through a buffer pointer; each station's members copied from the snapshot's cache
            // once written (`StationItemBytes`: the same bytes, without printing them again).
            snapshot.stations.withUnsafeBufferPointer { all in
                for position in stations {
                    out.objectStart()
                    itemBytes.writeMembers(of: all, at: Int(position), into: &out)
                    let stale = uniform ?? threshold.map { StaleClock.isStale(all[Int(position)], threshold: $0, fetchedAt: fetchedAt) } ?? false
                    if stale { out.key("stale"); out.bool(true) }
                    out.objectEnd()
                }
            }
        }
        for cluster in clusters { Visible.Item.cluster(cluster).write(to: &out) }
        Visible.writeTail(to: &out) { writeRemoved(removed, of: snapshot, into: &$0) }
    }

    /// The ids of removed keys as array elements, in the order given (ascending by key): a
    /// station's quoted id copied from its kept item bytes in `snapshot` when there
    /// (`StationSnapshot.writeKeptIDs`), else its interned id quoted.
    func writeRemoved(_ removed: [UInt64], of snapshot: StationSnapshot?, into out: inout JSONWriter) {
        func quoted(_ key: UInt64, _ out: inout JSONWriter) {
            if Cluster.isCluster(key) {
                Cluster.writeID(forKey: key, into: &out)
            } else {
                out.string(interner.id(for: key) ?? "")
            }
        }
        if let snapshot {
            snapshot.writeKeptIDs(of: removed, into: &out, otherwise: quoted)
        } else {
            for key in removed { quoted(key, &out) }
        }
    }

    /// Sends the selected station's current data, or a clear when it is no longer visible as a
    /// single station. With `onlyIfChanged`, stays silent while the station is visible and unchanged.
    func refreshSelection(_ client: ClientState, onlyIfChanged: Bool, into out: inout JSONWriter) {
        guard case .selected(let id, let lastFingerprint) = client.selection else { return }
        guard let snapshot = snapshots[client.viewport.day], let position = snapshot.position(of: id),
              client.shown.contains(snapshot.keys[position]) else {
            client.selection = .none
            writeSelection(client, id: id, station: nil, reason: "not-visible", into: &out)
            return
        }
        let stale = isStale(snapshot, position: position, threshold: staleThreshold())
        let fingerprint = snapshot.fingerprints[position] ^ (stale ? Self.staleSalt : 0)
        if onlyIfChanged && fingerprint == lastFingerprint { return }
        client.selection = .selected(id: id, fingerprint: fingerprint)
        writeSelection(client, id: id, station: snapshot.stations[position], reason: lastFingerprint == nil ? "selected" : "updated",
                       stale: stale, into: &out)
    }

    private func writeSelection(_ client: ClientState, id: String, station: Station?, reason: String, stale: Bool = false,
                                into out: inout JSONWriter) {
        let viewport = client.viewport
        Selection(client: viewport.client, id: id, day: viewport.day, reason: reason, station: station, stale: stale,
                  snapshot: snapshots[viewport.day]?.info ?? .none, presentation: viewport.presentation).write(to: &out)
    }

    // MARK: - Memory bounds

    /// Forgets clients that went quiet: a gateway's clients only when that gateway stopped leasing
    /// (while it leases, every client it hosts lives, so none of them is looked at), and clients
    /// without a gateway (``clientsWithoutGateway``) when idle for `idleSeconds`.
    ///
    /// Why not a walk of every client: the sweep runs every 3 s, and at 10,000 idle gateway clients
    /// that walk was most of an idle filter's CPU (issue 32); now an idle sweep costs one look per
    /// gateway and per client without one, whatever the number of gateway clients.
    private func sweep(now: Double) {
        guard now - lastSweep >= max(1, min(options.idleSeconds, options.leaseTimeout) / 10) else { return }
        lastSweep = now
        var gone: [ClientState] = []
        // Gateways whose lease is too old: only their clients may have to go, those that have not
        // spoken themselves lately either. A gateway hosting clients always has its tally (attach).
        let lapsed = gateways.compactMap { name, tally in
            tally.clients > 0 && tally.lastLease < now - options.leaseTimeout ? (name, tally.lastLease) : nil
        }
        if !lapsed.isEmpty {
            let leases = Dictionary(uniqueKeysWithValues: lapsed)
            for client in clients.values {
                guard let name = client.gateway, let leased = leases[name] else { continue }
                sweepLooks += 1
                if !isAlive(client, leased: leased, now: now) { gone.append(client) }
            }
        }
        for client in clientsWithoutGateway.values {
            sweepLooks += 1
            if !isAlive(client, leased: nil, now: now) { gone.append(client) }
        }
        for client in gone { remove(client) }
        // Lists of clients that asked without ever joining are in the backing; memory holds only
        // joined clients' (unless the backing failed and memory is all there is).
        if favoritesHealth == .healthy && favoriteLists.count > clients.count {
            favoriteLists = favoriteLists.filter { clients[$0.key] != nil }
        }
        // A gateway that stopped leasing and hosts nobody is forgotten too.
        gateways = gateways.filter { $0.value.clients > 0 || now - $0.value.lastLease < options.leaseTimeout }
    }

    /// A gateway's client lives while its gateway leases (or it spoke itself lately); any other
    /// client while it heartbeats.
    /// `leased`: when its gateway last leased (nil: it has no gateway).
    private func isAlive(_ client: ClientState, leased: Double?, now: Double) -> Bool {
        if let leased { return max(leased, client.lastSeen) >= now - options.leaseTimeout }
        return client.lastSeen >= now - options.idleSeconds
    }

    private func makeRoom() {
        guard clients.count >= options.maxClients else { return }
        if let oldest = clients.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.value {
            remove(oldest)
        }
    }
}
