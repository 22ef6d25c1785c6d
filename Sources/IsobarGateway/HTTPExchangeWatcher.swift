import NIOCore
import NIOHTTP1

/// Tells the connection's ``HTTPRequestGuard`` where each HTTP exchange stands, from behind the
/// HTTP decoder (it sees request parts coming in and response parts going out): a request's head
/// and end, a response's start and end. It also answers what the decoder refuses (not HTTP/1, an
/// odd method, a head over the decoder's own limit) through the guard, so such a peer gets 400 or
/// 431 and a close instead of a connection that waits forever. Removed before a WebSocket upgrade.
final class HTTPExchangeWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let requestGuard: HTTPRequestGuard

    init(requestGuard: HTTPRequestGuard) { self.requestGuard = requestGuard }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: requestGuard.headReceived()
        case .end: requestGuard.requestEnded()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            requestGuard.responseStarted()
        case .end:
            // Ended once written out: the next head's timer must not run down a slow download.
            let written = promise ?? context.eventLoop.makePromise()
            let bound = NIOLoopBound(requestGuard, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in bound.value.responseEnded() }
            context.write(data, promise: written)
            return
        case .body:
            break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        requestGuard.parseFailed(headerOverflow: parse == .headerOverflow)
    }
}
