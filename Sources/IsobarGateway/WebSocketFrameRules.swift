import NIOCore
import NIOWebSocket

/// Checks every WebSocket frame as it comes off the wire, before fragments are joined (the joined
/// message no longer shows its fragments' bits): a frame with a reserved bit (RSV1-3) set, when the
/// gateway negotiates no extension, or a frame the client did not mask (RFC 6455 5.1, 5.2) breaks
/// the protocol. The first such frame is dropped and reported as a ``Violation`` error, which the
/// ``WebSocketConnectionHandler`` answers with close 1002; nothing after it is read.
final class WebSocketFrameRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    private var broken = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !broken else { return }
        let frame = unwrapInboundIn(data)
        let violation: String?
        if frame.rsv1 || frame.rsv2 || frame.rsv3 {
            violation = "a reserved bit is set, and no extension was negotiated"
        } else if frame.maskKey == nil {
            violation = "a client frame must be masked"
        } else {
            violation = nil
        }
        guard let violation else {
            context.fireChannelRead(data)
            return
        }
        broken = true
        context.fireErrorCaught(Violation(description: violation))
    }
}
