/// A built-in stage: its name and what it takes from the bus, both from its row in the table of
/// message types (``MessageTypes``). `isobar up`'s service list, the in-process bus stage, the
/// plug lines and the compose and Kubernetes checks read a stage's subscriptions here, never from
/// a list of their own.
public protocol Stage {
    /// Who the stage is in the table of message types.
    static var party: Party { get }
}

extension Stage {
    /// The stage's name (its `error` lines' `stage`, its logs' label).
    public static var stage: String { party.rawValue }
    /// The topic prefixes the stage subscribes to on the bus: what it consumes.
    public static var subscriptions: [String] { MessageTypes.standard.subscriptions(of: party) }
}

/// A stage that turns lines into lines: the engine every form of running it shares (stdin/stdout,
/// in process on the bus with `--bus`, under `isobar plug`). Pure: the caller supplies the clock.
public protocol LineStage: Stage {
    /// Seconds between `tick` calls when no line arrives; nil: the stage has no timed work.
    var tickEvery: Double? { get }
    /// Handles one input line: its answers, an `error`, or the line itself passed through.
    func handle(line: UnsafeRawBufferPointer, now: Double, into out: inout JSONWriter)
    /// Timed work (sweeps, resync schedules), called about every `tickEvery` seconds.
    func tick(now: Double, into out: inout JSONWriter)
    /// The stage's first words, before any input (a filter's `resync` request).
    func start(into out: inout JSONWriter)
    /// Takes the function that writes out a writer's lines at once and empties it, for a stage
    /// that must not hold every answer to one input until `handle` returns (the filter's spill).
    func spill(to write: @escaping (inout JSONWriter) -> Void)
}

extension LineStage {
    public var tickEvery: Double? { nil }
    public func tick(now: Double, into out: inout JSONWriter) {}
    public func start(into out: inout JSONWriter) {}
    public func spill(to write: @escaping (inout JSONWriter) -> Void) {}
}
