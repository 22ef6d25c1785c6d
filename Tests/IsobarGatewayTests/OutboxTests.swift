@testable import IsobarGateway
import Foundation
import Testing

@Suite struct OutboxTests {
    @Test func boundedInOrderAndFinishDropsTheRest() {
        let outbox = Outbox(capacity: 3)
        #expect(outbox.push(Array("a".utf8)) == .queuedWake)
        #expect(outbox.push(Array("b".utf8)) == .queued)
        #expect(outbox.push(Array("c".utf8)) == .queued)
        #expect(outbox.push(Array("d".utf8)) == .full)
        #expect(outbox.pop() == Array("a".utf8))
        #expect(outbox.push(Array("d".utf8)) == .queued)
        #expect(outbox.pop() == Array("b".utf8))
        #expect(outbox.finish(.init(code: 1013, reason: "slow")))
        let second = outbox.finish(.init(code: 1001, reason: "later"))
        #expect(second == false)
        #expect(outbox.pop() == nil)
        #expect(outbox.push(Array("e".utf8)) == .finished)
        #expect(outbox.closeRequest == .init(code: 1013, reason: "slow"))
    }

    /// One wake per drain: pushes while a drain is pending do not wake again; the pop that finds
    /// the queue empty ends the drain, and the next push wakes.
    @Test func wakesOncePerDrain() {
        let outbox = Outbox(capacity: 8)
        #expect(outbox.push(Array("a".utf8)) == .queuedWake)
        #expect(outbox.push(Array("b".utf8)) == .queued)
        #expect(outbox.pop() == Array("a".utf8))
        #expect(outbox.push(Array("c".utf8)) == .queued)
        #expect(outbox.pop() == Array("b".utf8))
        #expect(outbox.pop() == Array("c".utf8))
        #expect(outbox.pop() == nil)
        #expect(outbox.push(Array("d".utf8)) == .queuedWake)
        #expect(outbox.count == 1)
    }

    /// A pushing thread and a draining thread (woken like the event loop is): every frame arrives,
    /// in order, none twice.
    @Test func aPusherAndADrainerPassManyInOrder() async {
        let outbox = Outbox(capacity: 4)
        let wakes = AsyncStream<Void>.makeStream()
        let reader = Task { () -> [[UInt8]] in
            var got: [[UInt8]] = []
            for await _ in wakes.stream {
                while let text = outbox.pop() { got.append(text) }
            }
            while let text = outbox.pop() { got.append(text) }
            return got
        }
        var sent: [[UInt8]] = []
        for n in 0..<2_000 {
            while true {
                let push = outbox.push(Array("\(n)".utf8))
                if push == .full { await Task.yield(); continue }
                if push == .queuedWake { wakes.continuation.yield() }
                break
            }
            sent.append(Array("\(n)".utf8))
        }
        wakes.continuation.finish()
        #expect(await reader.value == sent)
    }
}
