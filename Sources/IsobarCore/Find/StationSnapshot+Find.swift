/// Nearest-station and name search over a snapshot, with the ties the protocol specifies.
extension StationSnapshot {
    /// The station nearest to `point` (great circle; an exact tie goes to the smaller id in UTF-8
    /// byte order), or nil for an empty snapshot.
    public func nearestStation(to point: Coordinate) -> (station: Station, hit: NearestIndex.Hit)? {
        let all = stations
        guard let hit = nearest.nearest(to: point, precedes: { a, b in
            all[Int(a)].id.utf8.lexicographicallyPrecedes(all[Int(b)].id.utf8)
        }) else { return nil }
        return (all[Int(hit.index)], hit)
    }

    /// The best `limit` stations for a search query (see ``NameIndex/search(_:limit:in:)``).
    public func search(_ query: String, limit: Int) -> [(station: Station, match: NameMatch)] {
        names.search(query, limit: limit, in: stations, exactID: { self.position(of: $0) }).map { (stations[Int($0.position)], $0.match) }
    }
}
