@testable import IsobarGateway
import Testing

@Suite struct OutboxTests {
    @Test func boundedInOrderAndFinishDropsTheRest() async {
        let outbox = Outbox(capacity: 3)
        #expect(outbox.push("a") == .queued)
        #expect(outbox.push("b") == .queued)
        #expect(outbox.push("c") == .queued)
        #expect(outbox.push("d") == .full)
        #expect(await outbox.next() == "a")
        #expect(outbox.push("d") == .queued)
        #expect(await outbox.next() == "b")
        #expect(outbox.finish(.init(code: 1013, reason: "slow")))
        #expect(!outbox.finish(.init(code: 1001, reason: "later")))
        #expect(await outbox.next() == nil)
        #expect(outbox.push("e") == .finished)
        #expect(outbox.closeRequest == .init(code: 1013, reason: "slow"))
    }

    @Test func aWaitingReaderGetsThePushAndManyPassThrough() async {
        let outbox = Outbox(capacity: 4)
        let reader = Task { () -> [String] in
            var got: [String] = []
            while let text = await outbox.next() { got.append(text) }
            return got
        }
        var sent: [String] = []
        for n in 0..<2_000 {
            while outbox.push("\(n)") == .full { await Task.yield() }
            sent.append("\(n)")
        }
        while outbox.count > 0 { await Task.yield() }
        outbox.finish(nil)
        #expect(await reader.value == sent)
    }
}
