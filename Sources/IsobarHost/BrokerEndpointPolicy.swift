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
}
