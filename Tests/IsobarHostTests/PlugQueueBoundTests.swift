import IsobarCore
import Testing
@testable import IsobarHost

/// Issue 27, item 6: plug's bus queues are bounded by bytes (`--max-queue-bytes`), not only by
/// ZeroMQ's message count (a persist replaying at every resync once held 1.5 GB in its plug).
@Suite struct PlugQueueBoundTests {
    @Test func theHighWaterMarkKeepsEachQueueWithinItsBytes() {
        func marks(_ bytes: Int) -> Int32 { PlugOptions(command: "cat", maxQueueBytes: bytes).queueMessages }
        #expect(PlugOptions(command: "cat").maxQueueBytes == 64 << 20)
        #expect(PlugOptions(command: "cat").queueMessages == 1_024)
        #expect(marks(1 << 30) == 16_384)
        #expect(marks(100 * Limits.batchBytes + 1) == 100)
        // Never so few that a burst of small messages has nowhere to go.
        #expect(marks(0) == 16 && marks(1) == 16 && marks(-5) == 16)
        // Messages of the batch size fill at most the bytes given.
        for bytes in [1 << 20, 64 << 20, 256 << 20] { #expect(Int(marks(bytes)) * Limits.batchBytes <= bytes) }
    }
}
