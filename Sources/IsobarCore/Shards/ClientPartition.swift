/// The partition of a client: which of the fixed 64 slots its name falls in, so the messages a
/// client sends to the filter can be routed to the one filter shard that owns it, by topic prefix.
///
/// `partition = FNV-1a 64 of the client name's UTF-8 bytes (offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3, no separator) mod 64`. Any client, gateway or stage in any language
/// computes the same (PROTOCOL.md, "Filter shards"). The number of partitions never changes, so a
/// client's partition is stable; only which shard owns it depends on how many shards run.
public enum ClientPartition {
    public static let count = 64

    /// The message types a client sends to the filter: their topics carry the partition
    /// (`viewport/07/alice`), so each shard subscribes to its partitions' prefixes only. The
    /// table's `perPartition` rows (``MessageTypes``).
    public static let routedTypes: Set<String> = MessageTypes.standard.routedTypes

    /// The partition of a client name given as UTF-8 bytes.
    public static func of<C: Sequence>(utf8 bytes: C) -> Int where C.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Int(hash % UInt64(count))
    }

    public static func of(_ client: String) -> Int { of(utf8: client.utf8) }

    /// The partition as it appears in a topic: two decimal digits, `00` to `63`.
    public static func label(_ partition: Int) -> String {
        partition < 10 ? "0\(partition)" : String(partition)
    }
}
