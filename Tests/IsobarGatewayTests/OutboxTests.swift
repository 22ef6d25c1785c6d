@testable import IsobarGateway
import Foundation
import Testing

@Suite struct OutboxTests {
    @Test func boundedInOrderAndFinishDropsTheRest() {
        let outbox = Outbox(capacity: 3)
        #expect(outbox.push("a") == .queuedWake)
        #expect(outbox.push("b") == .queued)
        #expect(outbox.push("c") == .queued)
        #expect(outbox.push("d") == .full)
        #expect(outbox.pop() == "a")
        #expect(outbox.push("d") == .queued)
        #expect(outbox.pop() == "b")
        #expect(outbox.finish(.init(code: 1013, reason: "slow")))
        let second = outbox.finish(.init(code: 1001, reason: "later"))
        #expect(second == false)
        #expect(outbox.pop() == nil)
        #expect(outbox.push("e") == .finished)
        #expect(outbox.closeRequest == .init(code: 1013, reason: "slow"))
    }

    /// One wake per drain: pushes while a drain is pending do not wake again; the pop that finds
    /// the queue empty ends the drain, and the next push wakes.
    @Test func wakesOncePerDrain() {
        let outbox = Outbox(capacity: 8)
        #expect(outbox.push("a") == .queuedWake)
        #expect(outbox.push("b") == .queued)
        #expect(outbox.pop() == "a")
        #expect(outbox.push("c") == .queued)
        #expect(outbox.pop() == "b")
        #expect(outbox.pop() == "c")
        #expect(outbox.pop() == nil)
        #expect(outbox.push("d") == .queuedWake)
        #expect(outbox.count == 1)
    }

    /// A pushing thread and a draining thread (woken like the event loop is): every frame arrives,
    /// in order, none twice.
    @Test func aPusherAndADrainerPassManyInOrder() async {
        let outbox = Outbox(capacity: 4)
        let wakes = AsyncStream<Void>.makeStream()
        let reader = Task { () -> [String] in
            var got: [String] = []
            for await _ in wakes.stream {
                while let text = outbox.pop() { got.append(text) }
            }
            while let text = outbox.pop() { got.append(text) }
            return got
        }
        var sent: [String] = []
        for n in 0..<2_000 {
            while true {
                let push = outbox.push("\(n)")
                if push == .full { await Task.yield(); continue }
                if push == .queuedWake { wakes.continuation.yield() }
                break
            }
            sent.append("\(n)")
        }
        wakes.continuation.finish()
        #expect(await reader.value == sent)
    }
}
