/// A request waiting for its answer (``IsobarClient`` resends it after each reconnection).
struct PendingRequest {
    enum Kind: String {
        case nearest, search, detail, favorite, geocode, reverse

        func isAnswered(by answer: MapState.Answer) -> Bool {
            switch (self, answer) {
            case (.nearest, .place), (.search, .results), (.detail, .report), (.favorite, .favorites),
                 (.geocode, .locations), (.reverse, .vicinity): true
            default: false
            }
        }

        /// Whether an `error` from this stage is the refusal of a request of this kind.
        func isRefused(by error: ServerError) -> Bool {
            switch self {
            case .geocode, .reverse: error.stage == "places"
            case .nearest, .search, .detail, .favorite: error.stage == "filter" || error.stage == "format"
            }
        }
    }

    let id: Int
    let kind: Kind
    let frame: String
    let continuation: CheckedContinuation<MapState.Answer, any Error>
}
