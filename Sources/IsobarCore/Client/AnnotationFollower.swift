/// The annotations one client holds and the version rules around them: the one state machine of
/// every client in the repository (the app library's `MapState`, the terminal map's
/// ``AttachState``, the benchmark's thousands of clients, the test clients), so a rule is written
/// and tested once.
///
/// - Messages apply by version (``AnnotationSet``); a gap marks the set broken until a full set.
/// - A gap asks for one `resync` per break: diffs while broken are gaps too, and meanwhile the
///   version reported (``reportedVersion``) is 0, which the filter always answers in full, so a
///   lost `resync` is repaired by the next viewport or heartbeat.
/// - The version reported on each viewport is none before anything is shown (the filter answers
///   at once), 0 while broken, else the applied one (the filter adopts it after its restart and
///   resends in full when it sent more meanwhile: the lost-answer rule).
public struct AnnotationFollower: Sendable {
    /// What applying one message did.
    public enum Step: Sendable, Equatable {
        case applied
        /// Not newer than the set (a duplicate or a late diff): ignored.
        case stale
        /// A version gap; `resync`: ask for a full set now (the first gap of a break).
        case gap(resync: Bool)
    }

    public private(set) var set: AnnotationSet
    /// Whether a message from the wire was applied (the filter answered this client).
    public private(set) var answered = false
    /// Whether the set came from elsewhere (an app's offline file) before any answer.
    public private(set) var restored = false

    public init(keepsDetail: Bool = false) {
        set = AnnotationSet(keepsDetail: keepsDetail)
    }

    /// The version a viewport reports (see the type's rules); nil before anything is shown.
    public var reportedVersion: Int? {
        guard answered || restored else { return nil }
        return set.broken ? 0 : set.version
    }

    /// Applies a line as received, in one pass (``AnnotationSet/apply(storage:)``).
    public mutating func apply(storage: [UInt8]) throws(MessageError) -> Step {
        try step { (set: inout AnnotationSet) throws(MessageError) in try set.apply(storage: storage) }
    }

    /// Applies a line where it lies, read during the call only (``AnnotationSet/apply(bytes:)``).
    public mutating func apply(bytes line: UnsafeRawBufferPointer) throws(MessageError) -> Step {
        try step { (set: inout AnnotationSet) throws(MessageError) in try set.apply(bytes: line) }
    }

    /// Applies a parsed line.
    public mutating func apply(_ object: JSONObject) throws(MessageError) -> Step {
        try step { (set: inout AnnotationSet) throws(MessageError) in try set.apply(object) }
    }

    /// Applies a typed message.
    public mutating func apply(_ message: Annotations) -> Step {
        let wasBroken = set.broken
        return step(set.apply(message), wasBroken: wasBroken)
    }

    /// Shows a set that did not come from the wire (restored from a file); its version is
    /// reported as if applied, so the filter adopts it and nothing goes blank.
    public mutating func restore(_ set: AnnotationSet) {
        self.set = set
        restored = true
    }

    private mutating func step(_ apply: (inout AnnotationSet) throws(MessageError) -> AnnotationSet.Outcome) throws(MessageError) -> Step {
        let wasBroken = set.broken
        return step(try apply(&set), wasBroken: wasBroken)
    }

    private mutating func step(_ outcome: AnnotationSet.Outcome, wasBroken: Bool) -> Step {
        switch outcome {
        case .stale: return .stale
        case .gap: return .gap(resync: !wasBroken)
        case .applied:
            answered = true
            restored = false
            return .applied
        }
    }
}
