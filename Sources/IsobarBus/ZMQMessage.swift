/// A received multipart message: its frames, copied out of libzmq.
///
/// Isobar's messages have two frames, topic then payload (one JSON line, or lines of that topic
/// joined by `\n`: `TopicBatch` in IsobarCore splits them); `topic` and `payload` name them. A message
/// with another frame count (from a foreign publisher) is still delivered whole so the caller can report it.
public struct ZMQMessage: Sendable, Equatable {
    /// Every frame, in order. Never empty.
    public var frames: [[UInt8]]

    public init(frames: [[UInt8]]) {
        self.frames = frames
    }

    /// The first frame as text (the topic of an Isobar message).
    public var topic: String { String(decoding: frames.first ?? [], as: UTF8.self) }

    /// The second frame (the JSON line of an Isobar message), or empty if there is none.
    public var payload: [UInt8] { frames.count > 1 ? frames[1] : [] }

    /// The payload as text (invalid UTF-8 is replaced with U+FFFD).
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }

    /// Whether this has the two frames an Isobar bus message has.
    public var isTopicAndPayload: Bool { frames.count == 2 }
}
