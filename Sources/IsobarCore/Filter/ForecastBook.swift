/// The filter's forecasts per cell, as the forecast stage sent them, and the detail screens
/// waiting to be sent again with one (PROTOCOL.md, "Forecast on demand").
struct ForecastBook {
    /// What the filter knows of one cell.
    enum Entry {
        /// An `outlook` went out at this time (Unix s) and no `forecast` came back yet.
        case asked(at: Double)
        /// The last `forecast` (ok or failed), in force until its `expiresAt`.
        case held(ForecastMessage)
        /// The held forecast expired and an `outlook` for a new one went out at this time; the old
        /// one is still shown meanwhile.
        case refreshing(ForecastMessage, at: Double)
    }

    /// A detail to answer again when its cell's forecast arrives.
    enum Reissue {
        case detail(DetailRequest)
        case spot(Spot)
    }

    /// An `outlook` without an answer (lost on the bus, the stage down) is sent again after this
    /// many seconds when a client asks.
    static let askAgainAfter = 60.0
    /// Most clients waiting at once; past it a client's detail is not sent again by itself (it
    /// has the forecast the next time it asks).
    static let maxWaiting = 100_000
    /// Most cells held; past it expired forecasts go first, then every entry.
    static let maxCells = 100_000

    /// Most cells of one client's favorites given an outlook (the first ones in the list's order):
    /// a list of 200 favorites costs at most this many forecast requests per refresh.
    static let maxFavoriteCells = 10

    var entries: [ForecastCell: Entry] = [:]
    /// Per cell: the clients whose favorites list waits for its forecast (sent again as `pinned`).
    var favoritesWaiting: [ForecastCell: Set<String>] = [:]
    /// Clients registered in `favoritesWaiting`, counted over every cell.
    private var favoritesWaitingCount = 0

    mutating func waitFavorites(client: String, cell: ForecastCell) {
        guard favoritesWaitingCount < Self.maxWaiting, favoritesWaiting[cell, default: []].insert(client).inserted else { return }
        favoritesWaitingCount += 1
    }

    /// The clients whose favorites wait for `cell`, by name, removed from the book.
    mutating func takeFavoritesWaiting(_ cell: ForecastCell) -> [String] {
        guard let names = favoritesWaiting.removeValue(forKey: cell) else { return [] }
        favoritesWaitingCount -= names.count
        return names.sorted()
    }
    /// Per client: the cell of the last detail it opened that waits for a forecast.
    var waiting: [String: (cell: ForecastCell, again: Reissue)] = [:]

    mutating func wait(client: String, cell: ForecastCell, again: Reissue) {
        guard waiting[client] != nil || waiting.count < Self.maxWaiting else { return }
        waiting[client] = (cell, again)
    }

    mutating func set(_ cell: ForecastCell, _ entry: Entry, now: Double) {
        if entries[cell] == nil, entries.count >= Self.maxCells {
            entries = entries.filter { if case .held(let held) = $0.value { now < held.expiresAt } else { true } }
            if entries.count >= Self.maxCells { entries.removeAll() }
        }
        entries[cell] = entry
    }

    /// The waiting details of `cell`, by client name, removed from the book.
    mutating func takeWaiting(_ cell: ForecastCell) -> [Reissue] {
        let due = waiting.filter { $0.value.cell == cell }.sorted { $0.key < $1.key }
        for (client, _) in due { waiting[client] = nil }
        return due.map(\.value.again)
    }
}

/// What a `particulars` line says of the forecast: nothing (forecasts off, or the station has its
/// own), that one was asked for, or the cell's last answer.
enum ForecastAttachment {
    case pending
    case held(ForecastMessage)
}
