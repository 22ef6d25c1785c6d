import IsobarCore

/// What one fetch of a source produced, before parsing.
public enum FetchResponse: Sendable, Equatable {
    /// 304 Not Modified (or a file whose size and modification time did not change).
    case notModified
    /// The whole body, within the size limit, and the validators to send next time.
    case body([UInt8], ConditionalValidators)
    /// An onX body, read record by record as it arrived (never held whole), and the validators.
    case parsed(ParsedFeed, ConditionalValidators)
    /// Why nothing usable came back, in words for a `status` message.
    case failed(String)
    /// 429 Too Many Requests or 503 with a `Retry-After` in seconds: the server's own wait, which
    /// the next attempt honours (up to `FeedPoller.maxRetryAfter`).
    case throttled(String, retryAfter: Double)
}
