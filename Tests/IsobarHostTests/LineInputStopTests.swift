import Foundation
import IsobarStdio
import Synchronization
import Testing

/// A stop wakes a `LineInput` blocked on an input that stays open and silent (attach's stdin, a
/// terminal nobody types on): the loop ends on the stop's wake descriptor, not at a poll tick and
/// not at end of input.
@Suite struct LineInputStopTests {
    /// What ended the loop: the stop (input still open) or the test closing the input.
    enum Ending: Equatable { case stop, endOfInput }

    @Test func aStopEndsALoopBlockedOnSilentInput() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        let stop = StopFlag()
        let lines = Mutex<[String]>([])
        let inputClosed = Mutex(false)
        // Events between the threads, each a StopFlag used as a one-shot signal.
        let started = StopFlag(), ended = StopFlag()
        let ending = await withCheckedContinuation { (done: CheckedContinuation<Ending, Never>) in
            Thread {
                LineInput.run(fd: readEnd, stop: stop,
                              line: { bytes in lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } },
                              tooLong: { _, _ in }, drained: { started.raise() })
                let ending: Ending = inputClosed.withLock { $0 } ? .endOfInput : .stop
                ended.raise()
                done.resume(returning: ending)
            }.start()
            // One line through, so the loop is known to be running and waiting for the next.
            _ = "first\n".withCString { write(writeEnd, $0, 6) }
            Thread {
                _ = started.wait(timeout: 30)
                stop.raise()
                // Only if the stop did not wake the loop: end the input so the test ends (red).
                if ended.wait(timeout: 30) == .timedOut {
                    inputClosed.withLock { $0 = true }
                    close(writeEnd)
                }
            }.start()
        }
        if !inputClosed.withLock({ $0 }) { close(writeEnd) }
        #expect(ending == .stop)
        #expect(lines.withLock { $0 } == ["first"])
    }

    @Test func aStopEndsAWaitAndARaisedFlagEndsTheNext() {
        let stop = StopFlag()
        #expect(stop.wait(timeout: 0) == .timedOut)
        stop.raise()
        #expect(stop.isRaised)
        #expect(stop.wait() == .stopped)
        #expect(stop.wait(readable: 0, timeout: 5) == .stopped)
    }
}
