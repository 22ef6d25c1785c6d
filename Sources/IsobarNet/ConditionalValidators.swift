/// The validators of the last good response, sent back as a conditional GET so an unchanged feed
/// costs the server a 304 instead of the whole body.
///
/// Only a response whose body parsed into a snapshot updates them: if a broken body's ETag were
/// kept, the next 304 would claim "unchanged" about data that was never accepted.
public struct ConditionalValidators: Sendable, Equatable {
    /// The `ETag` of the last good 200, sent as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` of the last good 200, sent as `If-Modified-Since`.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag.flatMap { $0.isEmpty ? nil : $0 }
        self.lastModified = lastModified.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// True when there is nothing to make the request conditional with.
    public var isEmpty: Bool { etag == nil && lastModified == nil }

    /// The request headers for a conditional GET, in a stable order.
    public var requestHeaders: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }
}
