import Foundation
import HTTPTypes
import HummingbirdWSClient
import NIOCore
import HummingbirdTLS
import IsobarCore
import Logging
@testable import IsobarTestSupport

/// A real WebSocket client (hummingbird-websocket's `WebSocketClient`) for the gateway tests:
/// `send` queues a text frame, received text frames collect in order, `closeFrame` is how the
/// server ended the connection.
///
/// `@unchecked Sendable`: state is guarded by `condition`.
final class WSTestClient: @unchecked Sendable {
    private let condition = NSCondition()
    private var received: [String] = []
    private var taken = 0
    private var ended = false
    private(set) var closeCode: Int?
    private(set) var failure: String?
    /// A frame to send: text, or binary bytes.
    enum Outgoing: Sendable { case text(String), binary([UInt8]) }
    private let outgoing: AsyncStream<Outgoing>
    private let continuation: AsyncStream<Outgoing>.Continuation
    private var task: Task<Void, Never>?

    /// With `tls`, connects over `wss://` with that client configuration (trust roots, verification)
    /// to `localhost` (a TLS client may not send an IP address as the server name).
    init(port: Int, query: String = "", headers: [String: String] = [:], tls: TLSConfiguration? = nil) {
        (outgoing, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        let outgoing = self.outgoing
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24)
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { configuration.additionalHeaders[field] = value }
        }
        var logger = Logger(label: "test-ws")
        logger.logLevel = .critical
        // On a thread of its own, never the Swift concurrency pool: the process tests (here and in
        // other test targets of the same run) block pool threads while they wait on sockets, and on two cores
        // a client on the pool could not connect or read until one of them finished.
        task = Task(executorPreference: TestThreadExecutor.shared) { [configuration, logger, tls] in
            do {
                let base = tls == nil ? "ws://127.0.0.1" : "wss://localhost"
                let frame = try await WebSocketClient.connect(url: "\(base):\(port)/ws\(query)", configuration: configuration,
                                                              tlsConfiguration: tls, logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await frame in outgoing {
                                switch frame {
                                case .text(let text): try await outbound.write(.text(text))
                                case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                                }
                            }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 1 << 24) {
                            if case .text(let text) = message { self.append(text) }
                        }
                        group.cancelAll()
                    }
                }
                self.end(code: frame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, failure: nil)
            } catch {
                self.end(code: nil, failure: "\(error)")
            }
        }
    }

    private func append(_ text: String) {
        condition.lock()
        received.append(text)
        condition.broadcast()
        condition.unlock()
    }

    private func end(code: Int?, failure: String?) {
        condition.lock()
        ended = true
        closeCode = code
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    func send(_ text: String) { continuation.yield(.text(text)) }
    func sendBinary(_ bytes: [UInt8]) { continuation.yield(.binary(bytes)) }

    /// Ends the connection from this side (normal closure).
    func close() { continuation.finish() }

    var isEnded: Bool { condition.withLock { ended } }

    /// The next received frame not taken before (parsed), waiting up to `timeout` seconds.
    func next(timeout: Double = 5) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while taken >= received.count {
            if ended || !condition.wait(until: deadline) { return nil }
        }
        taken += 1
        return (try? JSONSerialization.jsonObject(with: Data(received[taken - 1].utf8))) as? [String: Any]
    }

    /// Takes frames until one matches, up to `timeout` seconds; frames before it are passed to `skipped`.
    func next(timeout: Double = 5, where match: ([String: Any]) -> Bool, skipped: ([String: Any]) -> Void = { _ in }) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while let frame = next(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            if match(frame) { return frame }
            skipped(frame)
        }
        return nil
    }

    /// Waits up to `timeout` seconds for the connection to end.
    func waitForEnd(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !ended { if !condition.wait(until: deadline) { return ended } }
        return true
    }

    deinit {
        continuation.finish()
        task?.cancel()
    }
}

/// What a map client holds: annotations by id, applied by the rules every client shares
/// (IsobarCore's `AnnotationFollower`, which the app's library holds), and counters of what the
/// versions did on the wire.
struct HeldAnnotations {
    private(set) var follower = AnnotationFollower()
    /// The titles shown, by id.
    var titles: [String: String] { Dictionary(follower.set.values.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first }) }
    var version = 0
    /// Diffs whose version is not the previous one + 1 (a page would resync).
    var gaps = 0
    /// Messages whose version is not above the previous one (a page would ignore a diff, or see a reset).
    var backwards = 0
    /// Every version applied, in order.
    var versions: [Int] = []

    /// Applies an `annotations` message; other types are ignored. Returns whether it was one.
    @discardableResult
    mutating func apply(_ message: [String: Any]) -> Bool {
        guard message["type"] as? String == "annotations" else { return false }
        let version = (message["version"] as? NSNumber)?.intValue ?? 0
        if version != self.version + 1 && message["full"] as? Bool != true { gaps += 1 }
        if version <= self.version { backwards += 1 }
        self.version = version
        versions.append(version)
        if let line = try? JSONSerialization.data(withJSONObject: message) { _ = try? follower.apply(storage: Array(line)) }
        return true
    }
}
