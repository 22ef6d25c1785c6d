/// Why a request of the client failed. Each case says what to do.
public enum IsobarClientError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A request the contract refuses before anything is sent (a latitude out of range, an empty
    /// query): fix the argument.
    case invalidRequest(String)
    /// A stage or the gateway refused the request (`error` frame): its message says why.
    case refused(ServerError)
    /// No answer within the configured request timeout (the request was sent, and sent again after
    /// each reconnect): try again later.
    case timedOut(String)
    /// The client was stopped before the answer came.
    case stopped

    public var description: String {
        switch self {
        case .invalidRequest(let why): "invalid request: \(why)"
        case .refused(let error): "refused by \(error)"
        case .timedOut(let what): "no answer to \(what) in time; the gateway or a stage may be down: try again"
        case .stopped: "the client was stopped"
        }
    }
}
