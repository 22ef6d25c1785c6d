/// `isobar filter` as one ``LineStage``, the way every built-in stage runs (stdin/stdout, or with
/// `--bus` in process): the filter engine, with the formatter chained behind it when asked
/// (``FormatChain``: what leaves is what `isobar filter | isobar format` would print), and its
/// first words (a `resync` asking the publishers to replay their snapshots).
public final class FilterStage: LineStage {
    public static let party = Party.filter
    public let engine: FilterEngine
    /// The formatter behind the filter (`--chain-format`), or nil.
    public let chain: FormatChain?
    private let requestResync: Bool

    public init(engine: FilterEngine, chain: FormatChain?, requestResync: Bool) {
        self.engine = engine
        self.chain = chain
        self.requestResync = requestResync
    }

    public var tickEvery: Double? { engine.tickEvery }

    public func start(into out: inout JSONWriter) {
        if requestResync { Resync(reason: "filter started").write(to: &out) }
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
    }

    /// The engine's answers, formatted in process when the formatter is chained.
    private func answer(_ out: inout JSONWriter, _ produce: (inout JSONWriter) -> Void) {
        guard let chain else { produce(&out); return }
        chain.pass(into: &out, produce)
    }
}
