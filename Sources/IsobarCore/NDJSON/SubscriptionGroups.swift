/// What a publisher knows of the subscriptions behind the broker, for coalescing (`TopicBatch`):
/// whether lines of different topics of one type may travel under their group frame `T/`.
///
/// ZeroMQ delivers a message to a subscription that is a prefix of its topic frame. A group frame
/// `annotations/` reaches a subscriber of `annotations/` (the gateway, the benchmark) but not one
/// of `annotations/alice` (`isobar attach`) or of `viewport/07/` (a filter shard). So a group may
/// be used only while no subscription narrower than it exists: one that starts with `T/` and is
/// longer. The publisher learns the subscriptions as an XPUB socket does: one message per change,
/// `0x01` + topic when one is added, `0x00` + topic when it is gone (`apply(_:)`).
///
/// A group is refused as long as a narrower subscription is counted; an unbalanced count (an
/// unsubscription never seen) errs on the side of not coalescing, which only costs the saving.
public struct SubscriptionGroups: Sendable, Equatable {
    /// A group frame (`T/`) and how many subscriptions narrower than it are held.
    struct Narrower: Sendable, Equatable {
        let group: [UInt8]
        var count: Int
    }

    /// The groups with narrower subscriptions: a handful at most (one per message type that has a
    /// per-client or per-partition subscriber), so a scan compares bytes in place where a
    /// dictionary would hash a new array per lookup, once per line `TopicBatch.add` coalesces.
    private var narrower: [Narrower] = []

    public init() {}

    /// Takes one subscription message (`0x01` or `0x00`, then the topic prefix); anything else is
    /// ignored.
    public mutating func apply(_ message: UnsafeRawBufferPointer) {
        guard let kind = message.first, kind <= 1 else { return }
        let topic = message.dropFirst()
        guard let length = TopicBatch.group(of: topic), length < topic.count else { return }
        let group = topic.prefix(length)
        let found = index(of: group)
        if kind == 1 {
            if let found { narrower[found].count += 1 } else { narrower.append(Narrower(group: Array(group), count: 1)) }
        } else if let found {
            if narrower[found].count > 1 { narrower[found].count -= 1 } else { narrower.remove(at: found) }
        }
    }

    /// Whether lines may be sent under `group` (a group frame `T/`): no subscription narrower
    /// than it is held.
    public func allows<Group: Collection<UInt8>>(_ group: Group) -> Bool {
        narrower.isEmpty || index(of: group) == nil
    }

    /// The same groups with the same counts, in whatever order they were learnt.
    public static func == (lhs: SubscriptionGroups, rhs: SubscriptionGroups) -> Bool {
        lhs.narrower.count == rhs.narrower.count
            && lhs.narrower.allSatisfy { entry in rhs.index(of: entry.group).map { rhs.narrower[$0].count == entry.count } ?? false }
    }

    private func index<Group: Collection<UInt8>>(of group: Group) -> Int? {
        narrower.firstIndex { $0.group.elementsEqual(group) }
    }
}
