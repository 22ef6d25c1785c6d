/// A request waiting for its answer (``IsobarClient`` resends it after each reconnection).
struct PendingRequest {
    enum Kind: String {
        case nearest, search, detail, favorite, geocode, reverse, weather

        func isAnswered(by answer: MapState.Answer) -> Bool {
            switch (self, answer) {
            case (.nearest, .place), (.search, .results), (.detail, .report), (.favorite, .favorites),
                 (.geocode, .locations), (.reverse, .vicinity), (.weather, .conditions): true
            default: false
            }
        }

        /// Whether an `error` from this stage is the refusal of a request of this kind.
        func isRefused(by error: ServerError) -> Bool {
            switch self {
            // A weather request is refused by the places stage (a bad point or place id).
            case .geocode, .reverse, .weather: error.stage == "places"
            case .nearest, .search, .detail, .favorite: error.stage == "filter" || error.stage == "format"
            }
        }
    }

    let id: Int
    let kind: Kind
    let frame: String
    let continuation: CheckedContinuation<MapState.Answer, any Error>
}
