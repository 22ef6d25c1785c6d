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
        let present = list.ids.contains(request.id)
        let reason: String
        if request.on && !present {
            guard list.ids.count < options.maxFavorites else {
                throw MessageError("client \"\(request.client)\" already has \(options.maxFavorites) favorites; remove one first")
            }
            persist(into: &out) { try $0.add(request.id, for: request.client) }
            list.ids.append(request.id)
            reason = "added"
        } else if !request.on && present {
            persist(into: &out) { try $0.remove(request.id, for: request.client) }
            list.ids.removeAll { $0 == request.id }
            reason = "removed"
        } else {
            reason = "unchanged"
        }
        favoriteLists[request.client] = list
        writePinned(request.client, reason: reason, into: &out)
    }

    /// A client's first viewport: its stored favorites, sent if it has any (no favorites is the
    /// state a client starts from, so an empty list is not worth a message per join).
    func joinFavorites(_ client: ClientState, into out: inout JSONWriter) {
        let name = client.viewport.client
        favoriteLists[name] = loadFavorites(name, into: &out)
        if favoriteLists[name]?.ids.isEmpty == false { writePinned(name, reason: "joined", into: &out) }
    }

    /// After a new snapshot or a change of presentation: the list again to every client whose
    /// favorites now show something else. `force` sends it even unchanged (a resync).
    func refreshFavorites(_ names: some Sequence<String>, reason: String, force: Bool = false, into out: inout JSONWriter) {
        for name in names {
            guard let list = favoriteLists[name], !list.ids.isEmpty else { continue }
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
        guard favoritesHealth != .failing else { return FavoriteList(ids: []) }
        do {
            return FavoriteList(ids: try favoritesBacking.favorites(of: name))
        } catch {
            reportFavoritesFailure(error, becoming: .failing, into: &out)
            return FavoriteList(ids: [])
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

    /// What a client sees of its list: the ids, both days' station values and its presentation.
    private func favoritesFingerprint(_ name: String, _ list: FavoriteList) -> UInt64 {
        var hash = FNV1a()
        let presentation = clients[name]?.viewport.presentation ?? Presentation()
        hash.add(presentation.field?.rawValue ?? "")
        hash.add(presentation.units?.rawValue ?? "")
        hash.add(presentation.windUnit?.rawValue ?? "")
        hash.add(presentation.locale?.rawValue ?? "")
        for id in list.ids {
            hash.add(id)
            for day in Day.allCases {
                if let snapshot = snapshot(for: day), let position = snapshot.position(of: id) {
                    hash.add(snapshot.fingerprints[position])
                } else {
                    hash.add(byte: 0)
                }
            }
        }
        return hash.value
    }

    /// `{"type":"pinned","client":…,"reason":…,(presentation),"items":[{"id":…,"today":{station}|null,"tomorrow":…}]}`
    private func writePinned(_ name: String, reason: String, into out: inout JSONWriter) {
        guard var list = favoriteLists[name] else { return }
        list.sent = favoritesFingerprint(name, list)
        favoriteLists[name] = list
        out.objectStart()
        out.key("type"); out.string("pinned")
        out.key("client"); out.string(name)
        out.key("reason"); out.string(reason)
        (clients[name]?.viewport.presentation ?? Presentation()).write(to: &out)
        out.key("items")
        out.arrayStart()
        for id in list.ids {
            out.objectStart()
            out.key("id"); out.string(id)
            for day in Day.allCases {
                out.key(day == .today ? "today" : "tomorrow")
                if let snapshot = snapshot(for: day), let position = snapshot.position(of: id) {
                    out.objectStart()
                    snapshot.stations[position].writeMembers(to: &out)
                    out.objectEnd()
                } else {
                    out.null()
                }
            }
            out.objectEnd()
        }
        out.arrayEnd()
        out.objectEnd()
        out.newline()
    }
}
