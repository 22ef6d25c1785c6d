#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Groups consecutive lines of one topic into one bus payload: the lines joined by `\n`.
///
/// On the bus every message is two frames, the topic and the payload; the payload holds one JSON
/// line or several of the same topic separated by `\n` (a JSON line never holds a raw newline, so
/// the split is unambiguous). A sender batches only what it already has in hand (the lines of one
/// read from a stage's stdout, a snapshot being loaded): nothing waits for a batch to fill, so a
/// lone message leaves at once, as a one-line payload exactly like before batching existed. What a
/// burst gains is per-message cost paid once per batch instead of once per line, in every hop: the
/// sender's libzmq, the broker's proxy (twice), the receiver's libzmq and its poll loop.
///
/// ZeroMQ still filters by topic per frame, so a subscriber sees exactly the lines it subscribed to.
///
/// Coalescing (`groups` set): consecutive lines of different topics of one type leave under the
/// group frame `T/` (`annotations/` for `annotations/alice` and `annotations/bob`) while no
/// subscription narrower than the group is known (`SubscriptionGroups`); a receiver derives each
/// line's topic from the line (PROTOCOL.md, "Group frames"). It saves the per-message cost where
/// topics differ per client: a filter's `visible` lines, a formatter's `annotations`.
public struct TopicBatch: Sendable {
    /// The largest payload a batch grows to (a single longer line still goes, alone).
    public let capacity: Int
    /// The topic of the lines held.
    public private(set) var topic: [UInt8] = []
    /// The lines held, joined by `\n` (no trailing newline).
    public private(set) var payload: [UInt8] = []
    /// How many lines `payload` holds.
    public private(set) var lines = 0
    /// Coalescing, when set: consecutive lines of different topics in one group (`annotations/alice`,
    /// `annotations/bob`) share a payload sent under the group frame `T/` (`TopicBatch.group(of:)`)
    /// while `groups` allows it (no subscription narrower than the group). Nil: same-topic batches only.
    public var groups: SubscriptionGroups?
    /// Whether the lines held have different topics (then the frame sent is their group's).
    public private(set) var mixed = false
    /// The held topic's group length (`group(of:)`), worked out once when a batch starts.
    private var heldGroup: Int?

    public static let defaultCapacity = Limits.batchBytes

    public init(capacity: Int = TopicBatch.defaultCapacity) {
        self.capacity = max(1, capacity)
        payload.reserveCapacity(self.capacity)
    }

    public var isEmpty: Bool { lines == 0 }

    /// Adds `line` under `topic`. When it cannot join what is held (another topic, or the payload
    /// would pass `capacity`) what is held is handed to `send` first.
    public mutating func add(
        topic newTopic: UnsafeRawBufferPointer, line: UnsafeRawBufferPointer,
        send: (_ topic: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) -> Void
    ) {
        if lines > 0 {
            if payload.count + 1 + line.count > capacity {
                flush(send)
            } else if !topic.elementsEqual(newTopic) {
                if let groups, let group = heldGroup, newTopic.count > group,
                   topic[0..<group].elementsEqual(newTopic[0..<group]), groups.allows(topic[0..<group]) {
                    mixed = true
                } else {
                    flush(send)
                }
            }
        }
        if lines == 0 {
            topic.removeAll(keepingCapacity: true)
            topic.append(contentsOf: newTopic)
            heldGroup = Self.group(of: newTopic)
        } else {
            payload.append(0x0A)
        }
        payload.append(contentsOf: line)
        lines += 1
    }

    /// Hands what is held to `send` (nothing when empty) and empties the batch.
    public mutating func flush(_ send: (_ topic: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) -> Void) {
        guard lines > 0 else { return }
        topic.withUnsafeBytes { topicBytes in
            let frame = mixed ? UnsafeRawBufferPointer(rebasing: topicBytes[0..<(heldGroup ?? topicBytes.count)]) : topicBytes
            payload.withUnsafeBytes { send(frame, $0) }
        }
        payload.removeAll(keepingCapacity: payload.capacity <= 4 * capacity)
        lines = 0
        mixed = false
    }

    /// The length of a topic's group frame `T/` (its first segment and the `/` after it), or nil
    /// for a topic without `/` (it has no group: such lines are only batched with their own topic).
    /// The one reading of a group: the batch's and `SubscriptionGroups.apply(_:)`'s.
    public static func group<Topic: Collection<UInt8>>(of topic: Topic) -> Int? {
        topic.firstIndex(of: 0x2F).map { topic.distance(from: topic.startIndex, to: $0) + 1 }
    }

    /// Whether a received topic frame is a group frame `T/` (one `/`, at its end): its lines may
    /// have different topics, each derived from the line itself. No message's own topic has this
    /// shape (a `client` is never empty).
    public static func isGroup(_ frame: UnsafeRawBufferPointer) -> Bool {
        guard let last = frame.last, last == 0x2F, frame.count > 1 else { return false }
        return frame.firstIndex(of: 0x2F) == frame.count - 1
    }

    /// Calls `body` with each line of a received payload (the pieces between `\n`s; empty pieces
    /// are skipped, so a payload ending in `\n` or a one-line payload reads the same).
    public static func forEachLine(in payload: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard let base = payload.baseAddress else { return }
        var start = 0
        while start < payload.count {
            let end: Int
            if let found = memchr(base + start, 0x0A, payload.count - start) {
                end = base.distance(to: UnsafeRawPointer(found))
            } else {
                end = payload.count
            }
            if end > start { body(UnsafeRawBufferPointer(start: base + start, count: end - start)) }
            start = end + 1
        }
    }

    /// The lines of a received payload, copied (see `forEachLine(in:_:)`).
    public static func lines(of payload: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        payload.withUnsafeBytes { raw in forEachLine(in: raw) { result.append(Array($0)) } }
        return result
    }
}
