/// One filter shard's place in a layout of `count` shards: shard `index` owns the client
/// partitions `p` with `p % count == index` (``ClientPartition``). `Shard.whole` (0 of 1) owns
/// every client: a filter that is not sharded.
///
/// Written `k/N` on command lines (`isobar filter --shard 1/4`, `isobar plug --shard 1/4`).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// nil unless `1 <= count <= 64` and `0 <= index < count`.
    public init?(index: Int, count: Int) {
        guard (1...ClientPartition.count).contains(count), (0..<count).contains(index) else { return nil }
        self.init(uncheckedIndex: index, count: count)
    }

    /// Parses `k/N`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    public var isWhole: Bool { count == 1 }

    public func owns(partition: Int) -> Bool { partition % count == index }

    public func owns(client: String) -> Bool { owns(partition: ClientPartition.of(client)) }

    /// The partitions this shard owns, ascending.
    public var partitions: [Int] { (0..<ClientPartition.count).filter(owns(partition:)) }

    /// The subscription prefixes a stage's `topics` become for this shard: each routed type's
    /// prefix (`viewport/`) is replaced by one per owned partition (`viewport/00/`, `viewport/02/`,
    /// ...); every other topic is kept. The whole layout keeps `viewport/`, which matches every
    /// partition.
    public func subscriptions(_ topics: [String], types: MessageTypes = .standard) -> [String] {
        guard !isWhole else { return topics }
        var result: [String] = []
        for topic in topics {
            if topic.hasSuffix("/"), types.isRouted(String(topic.dropLast())) {
                result += partitions.map { topic + ClientPartition.label($0) + "/" }
            } else {
                result.append(topic)
            }
        }
        return result
    }
}
