import NIOCore
import NIOHTTP1

/// The HTTP answer to a refused WebSocket upgrade (401, 403, 409, 503 ... with the reason as text).
///
/// hummingbird-websocket answers every refused upgrade with a bare 400, so an app could not tell
/// "name taken" from "gateway full". The refusal is written straight to the channel, still in its
/// HTTP/1 phase, from the upgrade check (which runs on the channel's event loop), and the
/// connection is closed once it is out, before the library's own 400 can follow.
enum Refusal {
    static func send(status: Int, reason: String, on channel: any Channel) {
        let body = reason + "\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }
}
