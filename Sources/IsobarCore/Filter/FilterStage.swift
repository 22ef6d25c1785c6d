/// `isobar filter` as one ``LineStage``, the way every built-in stage runs (stdin/stdout, or with
/// `--bus` in process): the filter engine, with the formatter chained behind it when asked
/// (``FormatChain``: what leaves is what `isobar filter | isobar format` would print), and its
/// first words (a `resync` asking the publishers to replay their snapshots), asked again on a
/// backoff schedule until a snapshot is held.
public final class FilterStage: LineStage {
    public static let party = Party.filter
    public let engine: FilterEngine
    /// The formatter behind the filter (`--chain-format`), or nil.
    public let chain: FormatChain?
    private let requestResync: Bool
    /// Where the start-up request stands (see ``StartupResync``).
    private var startup = StartupResync.off

    /// The start-up `resync` (`--request-resync`) is asked again until the filter holds a complete
    /// snapshot of some day: the first one may go nowhere (ZeroMQ's slow joiner: the broker's
    /// subscription to `resync` may not have reached this stage's socket yet), and nothing else
    /// would ask while no client waits for a day. Asked again `backoff`'s ceilings apart (1, 2, 4
    /// … 64 s), on the stage's timer (`tick`): no timer of its own.
    enum StartupResync: Equatable {
        /// Not asked (`--request-resync` off), or answered: a snapshot is held.
        case off
        /// Asked `attempt` times; asked again at `due` (set by the first tick after the last ask).
        case waiting(attempt: Int, due: Double?)
    }

    /// The start-up request's schedule: 1 s after the first ask, doubling to at most 64 s (the
    /// publishers honour a bare `resync` at most once per `--resync-interval` themselves).
    static let startupBackoff = Backoff(initial: .seconds(1), maximum: .seconds(64))

    public init(engine: FilterEngine, chain: FormatChain?, requestResync: Bool) {
        self.engine = engine
        self.chain = chain
        self.requestResync = requestResync
    }

    public var tickEvery: Double? { engine.tickEvery }

    public func start(into out: inout JSONWriter) {
        guard requestResync else { return }
        Resync(reason: "filter started").write(to: &out)
        startup = .waiting(attempt: 1, due: nil)
    }

    /// A feed change's answers to every client leave in pieces of about `FilterEngine.spillBytes`
    /// (1 MiB), formatted first when the formatter is chained (``FormatChain/spill(_:_:)``).
    public func spill(to write: @escaping (inout JSONWriter) -> Void) {
        let chain = chain
        engine.spill = { out in if let chain { chain.spill(&out, write) } else { write(&out) } }
    }

    public func handle(line: UnsafeRawBufferPointer, now: Double, into out: inout JSONWriter) {
        answer(&out) { engine.handle(line: line, now: now, into: &$0) }
    }

    public func tick(now: Double, into out: inout JSONWriter) {
        answer(&out) { engine.tick(now: now, into: &$0) }
        askAgainUntilASnapshotIsHeld(now: now, into: &out)
    }

    /// The start-up request again when it is due and no snapshot is held yet (``StartupResync``).
    private func askAgainUntilASnapshotIsHeld(now: Double, into out: inout JSONWriter) {
        guard case .waiting(let attempt, let due) = startup else { return }
        if Day.allCases.contains(where: { engine.snapshot(for: $0) != nil }) {
            startup = .off
            return
        }
        if let due, now < due { return }
        if due != nil {
            Resync(reason: "filter started").write(to: &out)
        }
        let asked = due == nil ? attempt : attempt + 1
        startup = .waiting(attempt: asked, due: now + Self.startupBackoff.ceiling(attempt: asked).timeInterval)
    }

    /// The engine's answers, formatted in process when the formatter is chained.
    private func answer(_ out: inout JSONWriter, _ produce: (inout JSONWriter) -> Void) {
        guard let chain else { produce(&out); return }
        chain.pass(into: &out, produce)
    }
}
