import Foundation

/// Whether a `GET /ws` request may become a map client, and under which name.
///
/// Checked before the upgrade, so a refused app gets a plain HTTP status with the reason as text:
/// 503 (gateway stopping or full), 403 (Origin not allowed, or a `?client=` that differs from the
/// token's name), 401 (token missing or wrong), 400 (bad name), 409 (name already connected).
public enum Admission {
    public enum Decision: Sendable, Equatable {
        case accept(name: String)
        case reject(status: Int, reason: String)
    }

    /// `target` is the request's path with its query (`/ws?client=alice`).
    public static func decide(target: String, authorization: String?, origin: String?, options: GatewayOptions,
                              connections: Int, stopping: Bool, isTaken: (String) -> Bool) -> Decision {
        if stopping { return .reject(status: 503, reason: "the gateway is shutting down") }
        guard connections < options.maxConnections else {
            return .reject(status: 503, reason: "the gateway is full (\(options.maxConnections) connections)")
        }
        if let origin, !options.origins.isEmpty, !options.origins.contains(origin) {
            return .reject(status: 403, reason: "origin \(origin.prefix(100)) is not allowed")
        }
        let query = queryItems(of: target)
        var name: String
        if let tokens = options.tokens {
            var token = query["token"]
            if let authorization, authorization.hasPrefix("Bearer ") {
                token = String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
            }
            guard let token, let tokenName = tokens[token] else {
                return .reject(status: 401, reason: "a valid token is required (Authorization: Bearer TOKEN or ?token=)")
            }
            if let asked = query["client"], asked != tokenName {
                return .reject(status: 403, reason: "this token is for client \(tokenName)")
            }
            name = tokenName
        } else if let asked = query["client"] {
            guard ClientName.isValid(asked) else {
                return .reject(status: 400, reason: "client name must be 1-64 characters of A-Z a-z 0-9 . _ -")
            }
            name = asked
        } else {
            name = ClientName.generate()
            while isTaken(name) { name = ClientName.generate() }
        }
        if isTaken(name) { return .reject(status: 409, reason: "client \(name) is already connected") }
        return .accept(name: name)
    }

    /// The query's `name=value` pairs, percent-decoded (the first of a repeated name wins).
    static func queryItems(of target: String) -> [String: String] {
        guard let mark = target.firstIndex(of: "?") else { return [:] }
        var items: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let raw = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ") : ""
            let value = raw.removingPercentEncoding ?? raw
            if items[key] == nil { items[key] = value }
        }
        return items
    }
}
