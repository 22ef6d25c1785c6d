#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarBus
import IsobarCore

/// The bus-hop workload: `count` JSON messages of `size` bytes (`{"type":"hopA","n":"0000042","pad":"..."}`),
/// sent with at most `window` unanswered at a time so no queue on the way reaches its high-water
/// mark (ZeroMQ PUB drops there). The receiver checks that every number arrives once, in order.
struct HopTraffic {
    let count: Int
    let size: Int
    let window: Int

    /// Offset of the 7 digits of `n` in a message.
    static let numberOffset = 20

    struct Result {
        let seconds: Double
        let received: Int
        let inOrder: Bool
    }

    /// A message template; `n` is written in place for each send.
    func template(probe: Bool = false) -> [UInt8] {
        let head = #"{"type":"hopA","n":""# + (probe ? "P000000" : "0000000") + #"","pad":""#
        let tail = #""}"#
        let pad = max(0, size - head.utf8.count - tail.utf8.count)
        return Array((head + String(repeating: "x", count: pad) + tail).utf8)
    }

    static func setNumber(_ n: Int, in message: inout [UInt8]) {
        var value = n
        for i in stride(from: numberOffset + 6, through: numberOffset, by: -1) {
            message[i] = UInt8(ascii: "0") &+ UInt8(value % 10)
            value /= 10
        }
    }

    /// The message's number, or nil for a probe or anything else.
    static func number(in payload: UnsafeRawBufferPointer) -> Int? {
        guard payload.count >= numberOffset + 7 else { return nil }
        var value = 0
        for i in numberOffset..<(numberOffset + 7) {
            let digit = payload[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// Sends probes (every 20 ms) until the receiver sees one, so the subscription has reached
    /// every publisher on the way (ZeroMQ's slow joiner). Returns false after `timeout` seconds.
    static func handshake(send: (inout [UInt8]) -> Void, receiver: ZMQSocket, probe: [UInt8], timeout: Double = 15) -> Bool {
        var message = probe
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            send(&message)
            if let got = try? receiver.receiveMessage(timeout: .milliseconds(20)), !got.frames.isEmpty { return true }
        }
        return false
    }

    /// Runs the workload sending as every Isobar publisher does: consecutive lines of `topic` in
    /// hand go as one frame (`TopicBatch`) handed to `sendFrame`, flushed whenever the sender waits.
    func runBatched(topic: [UInt8], receiver: ZMQSocket,
                    sendFrame: (_ topic: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) -> Void) -> Result {
        var batch = TopicBatch()
        return topic.withUnsafeBytes { topicBytes in
            run(send: { message in message.withUnsafeBytes { batch.add(topic: topicBytes, line: $0, send: sendFrame) } },
                flush: { batch.flush(sendFrame) }, receiver: receiver)
        }
    }

    /// Runs the workload once: `send` publishes one message (or adds it to a batch); `flush` sends
    /// what a batching sender holds, called whenever the sender is about to wait and at the end.
    /// `receiver` is read on its own thread; every line of every frame counts (see `TopicBatch`).
    func run(send: (inout [UInt8]) -> Void, flush: () -> Void = {}, receiver: ZMQSocket) -> Result {
        let received = Counter()
        let done = DispatchSemaphore(value: 0)
        let total = count
        let state = ReceiveState()
        let thread = Thread {
            var expected = 0
            var inOrder = true
            while expected < total {
                guard let message = try? receiver.receiveMessage(timeout: .seconds(10)) else { break }
                guard let payload = message.frames.last else { continue }
                var lines = 0
                payload.withUnsafeBytes { raw in
                    TopicBatch.forEachLine(in: raw) { line in
                        guard let n = HopTraffic.number(in: line) else { return }  // a late probe
                        if n != expected { inOrder = false }
                        expected = max(expected, n) + 1
                        lines += 1
                    }
                }
                received.add(lines)
            }
            state.finish(at: Date(), inOrder: inOrder)
            done.signal()
        }
        var message = template()
        let start = Date()
        thread.start()
        for n in 0..<count {
            if n - received.current >= window {
                flush()
                while n - received.current >= window { usleep(50) }
            }
            HopTraffic.setNumber(n, in: &message)
            send(&message)
        }
        flush()
        done.wait()
        return Result(seconds: state.end.timeIntervalSince(start), received: received.current, inOrder: state.inOrder)
    }
}

/// What the receiving thread reports when it stops.
final class ReceiveState: @unchecked Sendable {
    // @unchecked: written once by the receiver before it signals, read after the wait.
    private(set) var end = Date()
    private(set) var inOrder = true

    func finish(at end: Date, inOrder: Bool) {
        self.end = end
        self.inOrder = inOrder
    }
}
