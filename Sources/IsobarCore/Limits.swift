/// The size limits every stage shares, in one place (PROTOCOL.md, "Lines" and "The bus"). Each is
/// a default: the commands take a flag to change it. The bus's own message limit (4 MiB,
/// `ZMQSocketOption.defaultMaxMessageSize`) lives in IsobarBus, which sees nothing of this module.
public enum Limits {
    /// Longest NDJSON line a stage reads (1 MiB); a longer one is skipped with one `error`.
    public static let lineBytes = 1 << 20
    /// Largest feed body `fetch` reads (8 MiB); a larger response is refused whole.
    public static let feedBodyBytes = 8 << 20
    /// Largest inbound WebSocket message the gateway takes (64 KiB).
    public static let gatewayFrameBytes = 64 * 1024
    /// Largest batched bus payload a sender builds (64 KiB; a longer line goes alone).
    public static let batchBytes = 64 * 1024
}
