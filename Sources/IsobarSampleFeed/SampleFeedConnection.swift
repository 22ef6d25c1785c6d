import Logging
import NIOCore
import NIOHTTP1
import IsobarNet

/// Serves the requests of one connection in order, carrying out each `SampleFeedReply`: delays,
/// trickled and truncated bodies, dropped connections and streamed oversized bodies.
struct SampleFeedConnection: Sendable {
    let responder: SampleFeedResponder
    let clock: @Sendable () -> Double
    let logger: Logger

    func serve(_ connection: SampleFeedServer.Connection) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                    case .body:
                        continue
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let keepOpen = try await respond(to: request, outbound)
                        if !keepOpen { return }
                    }
                }
            }
        } catch {
            // A client that goes away mid-answer (the fetcher giving up on a slow or huge body) is
            // expected here, not worth more than a debug line.
            logger.debug("sample feed connection ended: \(error)")
        }
    }

    /// Answers one request; false when the connection must close afterwards.
    private func respond(to request: HTTPRequestHead, _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws -> Bool {
        let reply = responder.reply(method: request.method, uri: request.uri, headers: request.headers, now: clock())
        logger.debug("\(request.method) \(request.uri) -> \(reply.statusCode == 0 ? "dropped" : String(reply.statusCode))\(reply.fault.map { " (fault \($0))" } ?? "")")
        if reply.delay > 0 {
            try await Task.sleep(nanoseconds: UInt64(reply.delay * 1e9))
        }
        let keepAlive = request.isKeepAlive
        let isHead = request.method == .HEAD
        switch reply.kind {
        case .drop:
            return false
        case .full(let status, var headers, let body):
            headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            try await outbound.write(.head(HTTPResponseHead(version: request.version, status: status, headers: headers)))
            if !isHead && !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            return keepAlive
        case .slow(var headers, let body, let seconds):
            headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            try await outbound.write(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers)))
            if !isHead {
                let pieces = max(1, min(body.count, 50))
                let size = (body.count + pieces - 1) / pieces
                let pause = UInt64(seconds / Double(pieces) * 1e9)
                var offset = 0
                while offset < body.count {
                    let end = min(body.count, offset + size)
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[offset..<end]))))
                    offset = end
                    if offset < body.count { try await Task.sleep(nanoseconds: pause) }
                }
            }
            try await outbound.write(.end(nil))
            return keepAlive
        case .truncated(var headers, let body):
            headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            try await outbound.write(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers)))
            if !isHead { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[0..<(body.count / 2)])))) }
            return false
        case .stream(var headers, let total):
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            try await outbound.write(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers)))
            if !isHead { try await Self.streamHuge(total, outbound) }
            try await outbound.write(.end(nil))
            return keepAlive
        }
    }

    /// A valid JSON array of about `total` bytes, written chunk by chunk with backpressure (the writer
    /// suspends while the socket is full), so serving 16 MiB never holds 16 MiB in memory.
    static func streamHuge(_ total: Int, _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        let record = #"{"id":"HUGE","name":"padding","longitude":0,"latitude":0,"temperature":null,"wind_speed":null,"wind_direction":null,"chance_of_precipitation":null}"#
        var chunk: [UInt8] = []
        while chunk.count < 64 * 1024 { chunk.append(contentsOf: (record + ",").utf8) }
        let filler = ByteBuffer(bytes: chunk)
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: "["))))
        var sent = 1
        while sent + chunk.count < total {
            try await outbound.write(.body(.byteBuffer(filler)))
            sent += chunk.count
        }
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: record + "]\n"))))
    }
}
