/// Whether a bus endpoint stays on this host, which decides whether its connections heartbeat.
///
/// Why: ZMTP heartbeats (``ZMQSocketOption/heartbeatInterval(milliseconds:)``, every second) exist to
/// find a link between hosts that went down and to replace it fast (RELIABILITY.md, "More than one
/// host"). On one host (`ipc://`, `inproc://`, `tcp://` to a loopback address) there is no link to
/// lose: a peer that exits closes its connections in the kernel, and the peer sees that at once.
/// There the heartbeats were pure cost: a PING and a PONG each way per connection per second, most
/// of an idle broker's CPU and ~0.3 µs per idle WebSocket client per second of the pipeline at
/// 10,000 clients (issue 32). ``ZMQSocket`` turns them off for such endpoints.
public enum ZMQEndpointScope: Equatable, Sendable {
    /// `ipc://`, `inproc://`, or `tcp://` to 127.0.0.0/8, `[::1]` or `localhost`.
    case thisHost
    /// Anything else, including a `tcp://` endpoint with a source address (`src;dst`) or an
    /// interface name: its connections heartbeat.
    case network

    public init(_ endpoint: String) {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") {
            self = .thisHost
            return
        }
        guard endpoint.hasPrefix("tcp://") else {
            self = .network
            return
        }
        let address = endpoint.dropFirst("tcp://".count)
        guard !address.contains(";"), let colon = address.lastIndex(of: ":") else {
            self = .network
            return
        }
        let host = address[..<colon]
        let loopback = host == "localhost" || host == "[::1]" || Self.isLoopbackIPv4(host)
        self = loopback ? .thisHost : .network
    }

    /// `127.a.b.c` with each part a number of at most 255.
    private static func isLoopbackIPv4(_ host: Substring) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }
}
