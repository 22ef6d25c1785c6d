/// How a message type's bus topic is made from the message (PROTOCOL.md, "The bus").
public enum TopicRule: String, Sendable {
    /// Never has a `client`: the topic is the type (`station`, `tally`).
    case plain
    /// Has a `client` or not: `type/<client>` with one, else the type (`resync`, `error`).
    case optionalClient
    /// Always has a `client`: `type/<client>` (`annotations/alice`).
    case perClient
    /// Always has a `client`, routed to one filter shard: `type/<partition>/<client>`
    /// (`viewport/07/alice`, ``ClientPartition``).
    case perPartition
}
