import IsobarCore

/// What the gateway holds per client for its ``Lease``: the number of the client's latest viewport
/// (`ref`, 0 before any) and the latest annotations version relayed to it (0 before any), with the
/// ``LeaseDigest`` over all clients kept up to date on every change (O(1): the old contribution is
/// XORed out and the new one in), so a lease never walks the clients.
public struct LeaseBook: Sendable {
    struct Entry: Sendable {
        var ref = 0
        var version = 0
        var hash: UInt64
    }

    private var entries: [String: Entry] = [:]
    public private(set) var digest = LeaseDigest()

    public init() {}

    public var count: Int { entries.count }

    public func contains(_ client: String) -> Bool { entries[client] != nil }
    public func ref(of client: String) -> Int { entries[client]?.ref ?? 0 }
    public func version(of client: String) -> Int { entries[client]?.version ?? 0 }

    /// A new client (ref 0, version 0). Adding a client already held changes nothing.
    public mutating func add(_ client: String) {
        guard entries[client] == nil else { return }
        let hash = LeaseDigest.entry(client: client, ref: 0, version: 0)
        entries[client] = Entry(hash: hash)
        digest.toggle(hash)
    }

    public mutating func remove(_ client: String) {
        guard let entry = entries.removeValue(forKey: client) else { return }
        digest.toggle(entry.hash)
    }

    /// Counts a new viewport of `client` and returns its number (1, 2, ...); 0 for an unknown client.
    public mutating func nextRef(_ client: String) -> Int {
        guard var entry = entries[client] else { return 0 }
        entry.ref += 1
        update(client, &entry)
        return entry.ref
    }

    /// Records the latest annotations version relayed to `client` (whatever its order: a restarted
    /// filter starts again at 1, and the digest must say what the client holds now).
    public mutating func relayed(_ client: String, version: Int) {
        guard var entry = entries[client], entry.version != version else { return }
        entry.version = version
        update(client, &entry)
    }

    private mutating func update(_ client: String, _ entry: inout Entry) {
        let hash = LeaseDigest.entry(client: client, ref: entry.ref, version: entry.version)
        digest.replace(entry.hash, with: hash)
        entry.hash = hash
        entries[client] = entry
    }
}
