/// One element of ``IsobarClient/updates``: what changed, and the whole state after it (a copy:
/// read it on any thread or actor).
public struct MapUpdate: Sendable {
    /// What changed.
    public enum Change: Sendable, Hashable, Codable {
        /// The annotations (a full set, a diff, or the saved set shown at start).
        case annotations
        /// The selected station's callout (shown, updated or cleared).
        case callout
        /// The favorites list or its count.
        case favorites
        /// The connection status.
        case connection
        /// The gateway or a stage refused something this client sent.
        case error(ServerError)
        /// A `status` broadcast (the pipeline's own news, `MapState.status`).
        case status
    }

    public var change: Change
    public var state: MapState
}
