/// The table of message types (``MessageType`` rows; the project's own is ``standard``) and
/// everything derived from it: topics, shard routing, gateway admission and relay, and each
/// party's subscriptions. A value, not only a static, so a test can add a row and watch it route.
public struct MessageTypes: Sendable {
    public let entries: [MessageType]
    private let byName: [String: MessageType]
    /// The partition-routed names, indexed by their UTF-8 length (the topic hot path compares a
    /// type's bytes against the few names of its length only).
    private let routedByLength: [[[UInt8]]]

    /// Rows in order; a repeated name keeps its first row (`MessageTypesTests` refuses repeats).
    public init(_ entries: [MessageType]) {
        self.entries = entries
        var byName: [String: MessageType] = [:]
        for entry in entries where byName[entry.name] == nil { byName[entry.name] = entry }
        self.byName = byName
        let routed = entries.filter { $0.topic == .perPartition }.map { Array($0.name.utf8) }
        var table = [[[UInt8]]](repeating: [], count: (routed.map(\.count).max() ?? 0) + 1)
        for name in routed { table[name.count].append(name) }
        routedByLength = table
    }

    /// This table with `more` rows after its own.
    public func adding(_ more: MessageType...) -> MessageTypes { MessageTypes(entries + more) }

    public subscript(name: String) -> MessageType? { byName[name] }

    /// The names in table order.
    public var names: [String] { entries.map(\.name) }

    // MARK: - Topics and shards

    /// The types a client sends toward the filter whose topics carry the client's partition
    /// (`viewport/07/alice`, ``ClientPartition``).
    public var routedTypes: Set<String> { Set(entries.filter { $0.topic == .perPartition }.map(\.name)) }

    public func isRouted(_ type: String) -> Bool { byName[type]?.topic == .perPartition }

    /// ``isRouted(_:)`` for a type given as UTF-8 bytes (every published line takes this).
    public func isRouted<C: Collection>(typeBytes type: C) -> Bool where C.Element == UInt8 {
        let count = type.count
        guard count < routedByLength.count else { return false }
        for name in routedByLength[count] where type.elementsEqual(name) { return true }
        return false
    }

    // MARK: - Subscriptions

    /// The topic prefixes a built-in stage subscribes to: every type it consumes
    /// (``MessageType/stageSubscription``), in table order.
    public func subscriptions(of stage: Party) -> [String] {
        entries.filter { $0.consumers.contains(stage) }.map(\.stageSubscription)
    }

    /// The types an app may send through the gateway, in table order.
    public var clientSent: [String] { entries.filter(\.clientSends).map(\.name) }

    /// The types the gateway relays to apps, in table order.
    public var clientReceived: [String] { entries.filter(\.clientReceives).map(\.name) }

    /// The client-facing types addressed to one client (relayed to that client only).
    private var perClientAnswers: [MessageType] { entries.filter { $0.clientReceives && $0.topic != .plain } }

    /// What a bus client (`party` `.gateway` or `.attach`) subscribes to: the per-client answers
    /// (`annotations/` + `client`; the gateway passes "" to take every client's), then the bare
    /// topics it consumes (`status`, `resync`: a client acts only on the bare one).
    public func clientSubscriptions(of party: Party, client: String) -> [String] {
        perClientAnswers.filter { $0.consumers.contains(party) }.map { "\($0.name)/\(client)" }
            + entries.filter { $0.consumers.contains(party) && ($0.topic == .plain || !$0.clientReceives) }.map(\.name)
    }

    /// The per-client answers `party` (a bus client: `.attach`, `.gateway`) consumes, in table order.
    public func answers(to party: Party) -> [String] {
        perClientAnswers.filter { $0.consumers.contains(party) }.map(\.name)
    }

    /// The types only `party` writes, in table order (what a stage adds to the bus).
    public func written(onlyBy party: Party) -> [String] {
        entries.filter { $0.writers == [party] }.map(\.name)
    }

    /// The prefixes of the per-client answers the gateway relays to the client named after them.
    public var relayedPrefixes: [String] { perClientAnswers.map { $0.name + "/" } }
}
