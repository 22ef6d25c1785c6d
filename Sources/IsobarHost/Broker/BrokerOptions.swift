/// Configuration of `isobar broker`.
public struct BrokerOptions: Sendable, Equatable {
    /// Where to bind the XSUB (publishers) and XPUB (subscribers). Defaults come from
    /// `BrokerEndpoints.fromEnvironment()`: `ISOBAR_PUB` / `ISOBAR_SUB`, else loopback ports 5559/5560.
    public var endpoints: BrokerEndpoints
    /// Allow binding endpoints reachable from other hosts (`tcp://*:5559`, a LAN address).
    /// Off by default; between hosts, configure `curve` too, or the bus is open and in clear text.
    public var allowRemote: Bool
    /// CURVE (encryption, and authentication against an allowlist of client keys). nil: plain bus.
    public var curve: BrokerCurve?

    public init(endpoints: BrokerEndpoints = .fromEnvironment(), allowRemote: Bool = false, curve: BrokerCurve? = nil) {
        self.endpoints = endpoints
        self.allowRemote = allowRemote
        self.curve = curve
    }
}
