import IsobarBus

/// Why `isobar broker` could not start.
public enum BrokerError: Error, CustomStringConvertible, Sendable {
    /// An endpoint would be reachable from other hosts and `allowRemote` is off.
    case remoteEndpointRefused(role: String, endpoint: String)
    /// libzmq refused to set up (most often: the port is already in use).
    case bus(ZMQError)

    public var description: String {
        switch self {
        case .remoteEndpointRefused(let role, let endpoint):
            "refusing to bind the \(role) endpoint \(endpoint): it is reachable from other hosts; use a "
                + "loopback address such as tcp://127.0.0.1:5559, or pass --allow-remote if you mean it "
                + "(with --curve-secret and --curve-allow, so the bus is encrypted and authenticated)"
        case .bus(let error):
            "broker: \(error)"
        }
    }
}
