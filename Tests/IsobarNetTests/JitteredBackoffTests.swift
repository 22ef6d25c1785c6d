import IsobarCore
import IsobarNet
import Testing

@Suite struct JitteredBackoffTests {
    @Test func ceilingDoublesFromBaseUpToCap() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(300))
        #expect((1...10).map { backoff.ceiling(attempt: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300].map { Duration.seconds($0) })
        #expect(backoff.ceiling(attempt: 1_000) == .seconds(300))
        #expect(backoff.ceiling(attempt: Int.max) == .seconds(300))
    }

    @Test func fullJitterStaysWithinZeroAndCeiling() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(300))
        for attempt in 1...40 {
            let ceiling = backoff.ceiling(attempt: attempt).timeInterval
            for _ in 0..<50 {
                let delay = backoff.delay(attempt: attempt, jitter: Jitter.system.next())
                #expect(delay >= 0 && delay <= ceiling)
                #expect(delay <= 300)
            }
        }
        #expect(backoff.delay(attempt: 3, jitter: 0) == 0)
        #expect(backoff.delay(attempt: 3, jitter: 0.5) == 2)
        #expect(backoff.delay(attempt: 30, jitter: 1) == 300)
    }

    @Test func jitterActuallySpreadsTheDelays() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(300))
        let delays = Set((0..<100).map { _ in backoff.delay(attempt: 8, jitter: Jitter.system.next()) })
        #expect(delays.count > 50)
        #expect(delays.contains { $0 < 64 } && delays.contains { $0 > 64 })
    }

    @Test func outOfRangeJitterIsClamped() {
        let backoff = Backoff(initial: .seconds(2), maximum: .seconds(10))
        #expect(backoff.delay(attempt: 2, jitter: 7) == 4)
        #expect(backoff.delay(attempt: 2, jitter: -1) == 0)
        #expect(backoff.delay(attempt: 2, jitter: .nan) == 0)
        #expect(Jitter.fixed(3).next() == 1)
    }
}
