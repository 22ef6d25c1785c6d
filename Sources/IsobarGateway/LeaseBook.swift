import IsobarCore

/// What the gateway holds per client for its ``Lease``: the number of the client's latest viewport
/// (`ref`, 0 before any) and the latest annotations version relayed to it (0 before any), with the
/// ``LeaseDigest`` over all clients, and per client partition, kept up to date on every change (O(1):
/// the old contribution is XORed out and the new one in), so a lease never walks the clients.
public struct LeaseBook: Sendable {
    struct Entry: Sendable {
        var ref = 0
        var version = 0
        var hash: UInt64
        /// The client's ``ClientPartition``.
        var partition: Int
    }

    private var entries: [String: Entry] = [:]
    public private(set) var digest = LeaseDigest()
    /// The count and digest per client partition, for sharded filters (``Lease/partitions``).
    private var partitionCounts = [Int](repeating: 0, count: ClientPartition.count)
    private var partitionDigests = [LeaseDigest](repeating: LeaseDigest(), count: ClientPartition.count)

    public init() {}

    public var count: Int { entries.count }

    public func contains(_ client: String) -> Bool { entries[client] != nil }
    public func ref(of client: String) -> Int { entries[client]?.ref ?? 0 }
    public func version(of client: String) -> Int { entries[client]?.version ?? 0 }
    public func partition(of client: String) -> Int? { entries[client]?.partition }

    /// The lease's per-partition shares: every partition holding a client, ascending.
    public var partitions: [Lease.Part] {
        (0..<ClientPartition.count).compactMap { p in
            partitionCounts[p] > 0 ? Lease.Part(partition: p, clients: partitionCounts[p], digest: partitionDigests[p]) : nil
        }
    }

    /// A new client (ref 0, version 0). Adding a client already held changes nothing.
    public mutating func add(_ client: String) {
        guard entries[client] == nil else { return }
        let hash = LeaseDigest.entry(client: client, ref: 0, version: 0)
        let partition = ClientPartition.of(client)
        entries[client] = Entry(hash: hash, partition: partition)
        digest.toggle(hash)
        partitionCounts[partition] += 1
        partitionDigests[partition].toggle(hash)
    }

    public mutating func remove(_ client: String) {
        guard let entry = entries.removeValue(forKey: client) else { return }
        digest.toggle(entry.hash)
        partitionCounts[entry.partition] -= 1
        partitionDigests[entry.partition].toggle(entry.hash)
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

    /// Records an `annotations` message relayed to `client`. A diff (`full` false) that neither
    /// follows the version held nor repeats it means a message was lost on the way (a formatter
    /// killed between the filter and here): the client no longer holds what the filter thinks, so
    /// version 0 is recorded. The digest then differs from the filter's tally, the gateway resends
    /// the viewport with `version` 0, and the filter answers with a full set. Later diffs keep 0
    /// until that full set arrives (a gap followed by a later diff would otherwise hide the loss).
    public mutating func relayed(_ client: String, version: Int, full: Bool) {
        guard let entry = entries[client] else { return }
        let follows = full || version == entry.version + 1 || version == entry.version
        relayed(client, version: follows ? version : 0)
    }

    private mutating func update(_ client: String, _ entry: inout Entry) {
        let hash = LeaseDigest.entry(client: client, ref: entry.ref, version: entry.version)
        digest.replace(entry.hash, with: hash)
        partitionDigests[entry.partition].replace(entry.hash, with: hash)
        entry.hash = hash
        entries[client] = entry
    }
}
