import IsobarBus

/// Why `isobar plug` could not start.
public enum PlugError: Error, CustomStringConvertible, Sendable {
    /// The sockets could not be set up (a malformed endpoint in ISOBAR_PUB / ISOBAR_SUB, ...).
    case bus(ZMQError)
    /// No command was given after `--`.
    case missingCommand

    public var description: String {
        switch self {
        case .bus(let error): "plug: \(error)"
        case .missingCommand: "plug: no command given; usage: isobar plug [--sub TOPIC]... -- COMMAND [ARGS...]"
        }
    }
}
