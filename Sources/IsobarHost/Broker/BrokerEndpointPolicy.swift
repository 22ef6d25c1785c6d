/// Decides whether binding an endpoint keeps the bus on this host.
///
/// Local: `ipc://` and `inproc://`, and `tcp://` on a loopback address (`127.0.0.0/8`, `localhost`,
/// `[::1]`). Anything else (`tcp://*:...`, `tcp://0.0.0.0:...`, a LAN address, an interface name, other
/// transports) is reachable from other hosts: the unencrypted bus would be open to the network.
public enum BrokerEndpointPolicy {
    /// Whether `endpoint` is reachable only from this host.
    public static func isLocal(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        let address = endpoint.dropFirst("tcp://".count)
        // The host is everything before the last ':' (the port); IPv6 hosts are bracketed.
        guard let colon = address.lastIndex(of: ":") else { return false }
        let host = address[..<colon].lowercased()
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            guard let value = Int(octet), octet.count <= 3 else { return false }
            return (0...255).contains(value)
        }
    }

    /// The endpoint the broker binds for `endpoint`: `tcp://localhost:PORT` (any case) becomes
    /// `tcp://127.0.0.1:PORT`, since libzmq takes a bind host as an interface name or an address
    /// and fails on `localhost` (ENODEV), which made `isobar up` restart the broker forever.
    /// Connecting to `tcp://localhost:PORT` still works: libzmq resolves it (IPv4) to 127.0.0.1.
    /// Every other endpoint is returned as it is.
    public static func bindable(_ endpoint: String) -> String {
        let prefix = "tcp://localhost:"
        guard endpoint.count > prefix.count, endpoint.lowercased().hasPrefix(prefix) else { return endpoint }
        return "tcp://127.0.0.1:" + endpoint.dropFirst(prefix.count)
    }
}
