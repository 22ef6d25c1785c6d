/// Favorites: each client's starred stations, kept durable by a `FavoritesBacking` and sent as
/// `pinned` (station data of both days, for the formatter's `starred`) when the client joins,
/// when its list changes, and when a new snapshot changes what the list shows.
///
/// The filter holds the lists because it holds both days' snapshots and sees every client join;
/// the backing only stores ids. A backing that fails is reported once (an `error` naming its
/// location), and the lists live on in memory for the rest of the run: a damaged file costs
/// durability, never the session. A backing that fails only to write (a read-only file) is still
/// read, so clients that join later get their stored lists (`FavoritesHealth`).
extension FilterEngine {
    func favorite(_ request: FavoriteRequest, now: Double, into out: inout JSONWriter) throws(MessageError) {
        clients[request.client]?.lastSeen = max(clients[request.client]?.lastSeen ?? now, now)
        var list = loadFavorites(request.client, into: &out)
        let reason: String
        switch request.change {
        case .one(let entry, on: true) where list.index(of: entry) == nil:
            guard list.entries.count < options.maxFavorites else {
                throw MessageError("client \"\(request.client)\" already has \(options.maxFavorites) favorites; remove one first")
            }
            persist(into: &out) { try $0.add(entry, for: request.client) }
            list.entries.append(entry)
            reason = "added"
        case .one(let entry, on: false) where list.index(of: entry) != nil:
            persist(into: &out) { try $0.remove(entry, for: request.client) }
            list.entries.removeAll { $0.sameFavorite(as: entry) }
            reason = "removed"
        case .one:
            reason = "unchanged"
        case .all(let entries):
            guard entries.count <= options.maxFavorites else {
                throw MessageError("a list of \(entries.count) favorites is over the limit of \(options.maxFavorites); the list stays as it was")
            }
            if entries == list.entries {
                reason = "unchanged"
            } else {
                persist(into: &out) { try $0.replace(with: entries, for: request.client) }
                list.entries = entries
                reason = "replaced"
            }
        }
        favoriteLists[request.client] = list
        writePinned(request.client, reason: reason, into: &out)
    }

    /// A client's first viewport: its stored favorites, sent if it has any (no favorites is the
    /// state a client starts from, so an empty list is not worth a message per join).
    func joinFavorites(_ client: ClientState, into out: inout JSONWriter) {
        let name = client.viewport.client
        favoriteLists[name] = loadFavorites(name, into: &out)
        if favoriteLists[name]?.entries.isEmpty == false { writePinned(name, reason: "joined", into: &out) }
    }

    /// After a new snapshot or a change of presentation: the list again to every client whose
    /// favorites now show something else. `force` sends it even unchanged (a resync).
    func refreshFavorites(_ names: some Sequence<String>, reason: String, force: Bool = false, into out: inout JSONWriter) {
        for name in names {
            guard let list = favoriteLists[name], !list.entries.isEmpty else { continue }
            if force || list.sent != favoritesFingerprint(name, list) { writePinned(name, reason: reason, into: &out) }
            spillIfLarge(&out)
        }
    }

    /// Drops a departed client's list (it is in the backing) unless the backing failed, in which
    /// case memory is the only copy left.
    func forgetFavorites(of name: String) {
        if favoritesHealth == .healthy { favoriteLists[name] = nil }
    }

    private func loadFavorites(_ name: String, into out: inout JSONWriter) -> FavoriteList {
        if let list = favoriteLists[name] { return list }
        guard favoritesHealth != .failing else { return FavoriteList(entries: []) }
        do {
            return FavoriteList(entries: try favoritesBacking.favorites(of: name))
        } catch {
            reportFavoritesFailure(error, becoming: .failing, into: &out)
            return FavoriteList(entries: [])
        }
    }

    private func persist(into out: inout JSONWriter, _ change: (any FavoritesBacking) throws -> Void) {
        guard favoritesHealth == .healthy else { return }
        do {
            try change(favoritesBacking)
        } catch {
            reportFavoritesFailure(error, becoming: .writesFailing, into: &out)
        }
    }

    /// One `error` for the first failure of any kind; later ones only move the state on.
    private func reportFavoritesFailure(_ error: any Error, becoming health: FavoritesHealth, into out: inout JSONWriter) {
        let first = favoritesHealth == .healthy
        favoritesHealth = health
        guard first else { return }
        let reason = "\(error)"
        ErrorMessage(stage: Self.stage,
                     message: "favorites store \(favoritesBacking.location) failed: \(reason)\(reason.hasSuffix(".") ? "" : ".") Changes to favorites are kept in memory until the filter stops; fix or move the file and restart the filter to store them again",
                     excerpt: "").write(to: &out)
    }

    /// What a favorite shows on one day: the station's position in that day's snapshot (a station
    /// by its id; a place or pin the nearest station within `options.favoriteRadiusKm`, with its
    /// distance and bearing), or nil.
    private func favoriteStation(_ entry: FavoriteEntry, on day: Day) -> (position: Int, reach: (distanceKm: Double, bearing: Double)?)? {
        guard let snapshot = snapshot(for: day) else { return nil }
        guard let point = entry.point else {
            guard case .station(let id) = entry, let position = snapshot.position(of: id) else { return nil }
            return (position, nil)
        }
        guard let found = snapshot.nearestStation(to: point), found.hit.distanceKm <= options.favoriteRadiusKm else { return nil }
        return (Int(found.hit.index), ((found.hit.distanceKm * 1000).rounded() / 1000, Self.roundedBearing(from: point, to: found.station.coordinate)))
    }

    /// What a client sees of its list: the entries, both days' station values (and, for a place
    /// or pin, which station answers at what distance) and its presentation.
    private func favoritesFingerprint(_ name: String, _ list: FavoriteList) -> UInt64 {
        var hash = FNV1a()
        let presentation = clients[name]?.viewport.presentation ?? Presentation()
        hash.add(presentation.field?.rawValue ?? "")
        hash.add(presentation.units?.rawValue ?? "")
        hash.add(presentation.windUnit?.rawValue ?? "")
        hash.add(presentation.locale?.rawValue ?? "")
        for entry in list.entries {
            hash.add(entry.kind)
            hash.add(entry.key)
            if let data = entry.storedData { hash.add(data) }
            for day in Day.allCases {
                if let snapshot = snapshot(for: day), let found = favoriteStation(entry, on: day) {
                    hash.add(snapshot.fingerprints[found.position])
                    hash.add(snapshot.stations[found.position].id)
                    hash.add(String(found.reach?.distanceKm ?? -1))
                } else {
                    hash.add(byte: 0)
                }
            }
        }
        return hash.value
    }

    /// The client's list as `pinned` (``Pinned``): each favorite with what it shows on both days.
    func writePinned(_ name: String, reason: String, into out: inout JSONWriter) {
        guard var list = favoriteLists[name] else { return }
        let outlooks = favoriteOutlooks(name, list.entries, into: &out)
        list.sent = favoritesFingerprint(name, list)
        favoriteLists[name] = list
        func shown(_ entry: FavoriteEntry, on day: Day) -> Pinned.Shown? {
            guard let snapshot = snapshot(for: day), let found = favoriteStation(entry, on: day) else { return nil }
            return Pinned.Shown(station: snapshot.stations[found.position].current, reach: found.reach)
        }
        Pinned(client: name, reason: reason, presentation: clients[name]?.viewport.presentation ?? Presentation(),
               radiusKm: options.favoriteRadiusKm,
               items: list.entries.enumerated().map { index, entry in
                   Pinned.Item(entry: entry, today: shown(entry, on: .today), tomorrow: shown(entry, on: .tomorrow), outlook: outlooks[index])
               })
            .write(to: &out)
    }
}
