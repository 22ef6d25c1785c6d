/// Configuration of `isobar broker`.
public struct BrokerOptions: Sendable, Equatable {
    /// Where to bind the XSUB (publishers) and XPUB (subscribers). Defaults come from
    /// `BrokerEndpoints.fromEnvironment()`: `ISOBAR_PUB` / `ISOBAR_SUB`, else loopback ports 5559/5560.
    public var endpoints: BrokerEndpoints
    /// Allow binding endpoints reachable from other hosts (`tcp://*:5559`, a LAN address).
    /// Off by default: the bus is unauthenticated and unencrypted until CURVE is configured.
    public var allowRemote: Bool

    public init(endpoints: BrokerEndpoints = .fromEnvironment(), allowRemote: Bool = false) {
        self.endpoints = endpoints
        self.allowRemote = allowRemote
    }
}
