import Foundation
import HummingbirdWebSocket
import IsobarCore

/// One WebSocket connection's life: register the client, then read its frames and write what the
/// bus sends it until either side ends; unregister (publishing `leave`) at the end.
///
/// Reading and writing are two child tasks: the writer drains the connection's bounded
/// ``Outbox`` (suspending while the socket is not writable, which is how a slow reader fills its
/// queue instead of the gateway's memory); the reader applies the frame size and rate limits.
enum GatewaySession {
    static func run(hub: GatewayHub, name: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
                    closeChannel: @escaping @Sendable () -> Void) async {
        guard let connection = hub.register(name: name, closeChannel: closeChannel) else {
            try? await outbound.close(.init(codeNumber: Int(GatewayCloseCode.nameTaken)), reason: "client \(name) is already connected")
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while let text = await connection.outbox.next() {
                    do {
                        try await outbound.write(.text(text))
                    } catch {
                        break
                    }
                    hub.metrics.framesOut.increment()
                }
                if let close = connection.outbox.closeRequest {
                    try? await outbound.close(.init(codeNumber: Int(close.code)), reason: close.reason)
                }
            }
            await read(inbound, connection: connection, hub: hub)
            connection.outbox.finish(nil)
            await group.waitForAll()
        }
        hub.unregister(connection)
    }

    private static func read(_ inbound: WebSocketInboundStream, connection: GatewayConnection, hub: GatewayHub) async {
        let options = hub.options
        var bucket = TokenBucket(rate: options.rate, burst: options.burst, strikeLimit: options.strikeLimit, now: seconds())
        do {
            for try await message in inbound.messages(maxSize: options.hardFrameLimit) {
                guard !connection.outbox.isFinished else { break }
                guard bucket.take(now: seconds()) else {
                    if bucket.exhausted {
                        hub.metrics.error(.rateClose)
                        hub.close(connection, code: GatewayCloseCode.policyViolation,
                                  reason: "kept sending over \(options.rate) messages/s")
                        break
                    }
                    hub.metrics.error(.rate)
                    hub.deliver(hub.errorLine("over the limit of \(options.rate) messages/s (burst \(Int(options.burst))); message dropped", []), to: connection)
                    continue
                }
                switch message {
                case .text(let text):
                    if let error = hub.receiveFrame(Array(text.utf8), from: connection) { hub.deliver(error, to: connection) }
                case .binary(let buffer):
                    hub.metrics.framesIn.increment()
                    hub.metrics.error(.binary)
                    let bytes = Array(buffer.readableBytesView.prefix(80))
                    hub.deliver(hub.errorLine("binary frames are not accepted; send each message as one text frame of JSON", bytes), to: connection)
                }
            }
        } catch {
            // The connection failed or was closed under us: the session ends.
        }
    }

    private static func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
