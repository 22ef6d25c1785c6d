/// `error`: a stage or the gateway refused something this client sent (a bad request, an
/// unknown station, a place that names nothing). `stage` says who: `gateway`, `filter`,
/// `format`, `places`.
public struct ServerError: Sendable, Hashable, Codable, Error, CustomStringConvertible {
    public var stage: String
    public var message: String
    public var excerpt: String?

    public init(stage: String, message: String, excerpt: String? = nil) {
        self.stage = stage
        self.message = message
        self.excerpt = excerpt
    }

    public var description: String { "\(stage): \(message)" }
}
