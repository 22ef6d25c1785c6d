import Foundation
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

    /// Sends a probe every 20 ms (a resend interval) until the receiver hears one, so the
    /// subscription has reached every publisher on the way (ZeroMQ's slow joiner). Returns false
    /// after `timeout`.
    static func handshake(send: (inout [UInt8]) -> Void, receiver: HopReceiver, probe: [UInt8], timeout: Duration = .seconds(15)) async -> Bool {
        var message = probe
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            send(&message)
            if await !receiver.heard.sleep(for: .milliseconds(20)) { return true }
        }
        return false
    }

    /// Runs the workload sending as every Isobar publisher does: consecutive lines of `topic` in
    /// hand go as one frame (`TopicBatch`) handed to `sendFrame`, flushed whenever the sender waits.
    func runBatched(topic: [UInt8], receiver: HopReceiver,
                    sendFrame: (_ topic: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) -> Void) async -> Result {
        var batch = TopicBatch()
        return await run(send: { message in
            topic.withUnsafeBytes { topicBytes in message.withUnsafeBytes { batch.add(topic: topicBytes, line: $0, send: sendFrame) } }
        }, flush: { batch.flush(sendFrame) }, receiver: receiver)
    }

    /// Runs the workload once: `send` publishes one message (or adds it to a batch); `flush` sends
    /// what a batching sender holds, called whenever the sender is about to wait and at the end.
    /// The receiver counts lines, not frames, so a batched frame counts every line in it.
    /// With `window` lines unanswered the sender awaits room for an eighth of the window (the
    /// receiver resumes it then: one wake per `window / 8` lines, not one per frame, so the
    /// harness never paces the path it measures); a run whose receiver stalls
    /// (`HopReceiver.stallGuard`) ends with the rest counted as lost.
    func run(send: (inout [UInt8]) -> Void, flush: () -> Void = {}, receiver: HopReceiver) async -> Result {
        receiver.begin(total: count)
        var message = template()
        let start = Date()
        for n in 0..<count {
            if n - receiver.receivedCount >= window {
                flush()
                guard await receiver.room(n - window + max(1, window / 8)) else { break }
            }
            HopTraffic.setNumber(n, in: &message)
            send(&message)
        }
        flush()
        let outcome = await receiver.finish()
        return Result(seconds: outcome.end.timeIntervalSince(start), received: outcome.received, inOrder: outcome.inOrder)
    }
}
