/// One row of the table of message types (``MessageTypes``): who writes it, who consumes it, how
/// its topic is made, and whether it crosses the gateway. Topic derivation, shard partitioning,
/// gateway admission and relay, every stage's subscriptions, `isobar attach` and the docs are
/// derived from these rows, never listed again.
public struct MessageType: Sendable, Equatable {
    /// The `type` field.
    public var name: String
    /// Who writes it (documentation and the protocol checks; nothing routes by it).
    public var writers: [Party]
    /// Who consumes it: each built-in stage listed here subscribes to it, and handles it without
    /// writing it back (PROTOCOL.md, "Who consumes what").
    public var consumers: [Party]
    public var topic: TopicRule
    /// Whether an app may send it through the gateway (the gateway fills in `client`).
    public var clientSends: Bool
    /// Whether the gateway relays it to apps (per client, or to all when `plain`).
    public var clientReceives: Bool

    public init(_ name: String, writers: [Party], consumers: [Party], topic: TopicRule,
                clientSends: Bool = false, clientReceives: Bool = false) {
        self.name = name
        self.writers = writers
        self.consumers = consumers
        self.topic = topic
        self.clientSends = clientSends
        self.clientReceives = clientReceives
    }

    /// The prefix a consuming stage subscribes to. A request toward a stage (sent by a client or
    /// routed to a shard) always names its client, so it is subscribed as `type/`: the slash keeps
    /// `select` from matching `selection`, and a shard replaces it by its partitions' prefixes.
    /// Everything else is subscribed bare, which also takes a bare `resync`.
    public var stageSubscription: String {
        switch topic {
        case .perPartition: return name + "/"
        case .perClient where clientSends: return name + "/"
        default: return name
        }
    }
}
