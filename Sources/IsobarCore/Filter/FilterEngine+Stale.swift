/// Stale data: which shown stations are older than `--stale-after`, and pushing the change to the
/// clients when stations cross that line while nothing else happens (a feed that stopped
/// updating must not look live).
///
/// Staleness is part of what a client was sent (the `stale` mark), so it is folded into the
/// fingerprint the diff compares: a station that turns stale, or fresh again after a new fetch,
/// is sent again in the next diff like any changed station.
extension FilterEngine {
    /// Mixed into a shown station's fingerprint while it is stale.
    static let staleSalt: UInt64 = 0x5EA1_DA7A_0000_0001

    /// Now minus `--stale-after` on the wall clock; nil when staleness is off.
    func staleThreshold() -> Double? {
        options.staleAfter.map { wallClock() - $0 }
    }

    /// The one answer for every station of `snapshot` when they all age with it (an onX feed),
    /// nil when each station must be asked (`isStale`).
    func uniformStaleness(_ snapshot: StationSnapshot, threshold: Double?) -> Bool? {
        guard let threshold else { return false }
        return snapshot.staleClock.isUniform ? snapshot.fetchedAt < threshold : nil
    }

    func isStale(_ snapshot: StationSnapshot, position: Int, threshold: Double?) -> Bool {
        guard let threshold else { return false }
        return StaleClock.isStale(snapshot.stations[position], threshold: threshold, fetchedAt: snapshot.fetchedAt)
    }

    /// How many stations of `day`'s snapshot are stale now (0 when staleness is off).
    public func staleCount(_ day: Day) -> Int {
        guard let snapshot = snapshot(for: day), let threshold = staleThreshold() else { return 0 }
        return snapshot.staleClock.staleCount(threshold: threshold, fetchedAt: snapshot.fetchedAt)
    }

    /// On the timer (about once a second): when the number of stale stations of a day changed,
    /// each client of that day gets a diff with the stations whose mark changed (and its
    /// callout). O(log n) per day when nothing changed.
    func checkStaleness(now: Double, into out: inout JSONWriter) {
        guard options.staleAfter != nil, now - lastStaleCheck >= 1 else { return }
        lastStaleCheck = now
        for day in Day.allCases {
            let count = staleCount(day)
            guard staleCounts[day] != count else { continue }
            let known = staleCounts[day] != nil
            staleCounts[day] = count
            guard known else { continue }  // first look at this snapshot: clients were sent it with its marks
            for client in clients.values where client.viewport.day == day && client.shownSnapshot != nil {
                send(client, full: false, into: &out)
                refreshSelection(client, onlyIfChanged: true, into: &out)
            }
        }
    }
}
