@testable import IsobarGateway
import Testing

/// The liveness sweep's decisions (``PingClock``), time passed in: ping 10 s.
@Suite struct PingClockTests {
    @Test func aSilentPeerIsPingedAfterAnIntervalAndDroppedAnIntervalLater() {
        var clock = PingClock(openedAt: 100)
        #expect(clock.action(now: 105, interval: 10) == .wait)
        #expect(clock.action(now: 109.9, interval: 10) == .wait)
        #expect(clock.action(now: 110, interval: 10) == .ping)
        clock.pinged(at: 110)
        #expect(clock.action(now: 115, interval: 10) == .wait)
        #expect(clock.action(now: 119.9, interval: 10) == .wait)
        #expect(clock.action(now: 120, interval: 10) == .drop)
    }

    @Test func aPeerThatKeepsTalkingIsNeverPinged() {
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 5.0, through: 100, by: 5) {
            clock.heard(at: second)
            #expect(clock.action(now: second + 5, interval: 10) == .wait)
        }
        #expect(clock.action(now: 110, interval: 10) == .ping)
    }

    @Test func aPongAnswersThePingAndRestartsTheSilence() {
        var clock = PingClock(openedAt: 0)
        clock.pinged(at: 10)
        clock.ponged(at: 12)
        #expect(clock.action(now: 20, interval: 10) == .wait)
        #expect(clock.action(now: 21.9, interval: 10) == .wait)
        #expect(clock.action(now: 22, interval: 10) == .ping)
    }

    @Test func onlyAPongAnswersAPing() {
        // Messages after the ping show the peer sends, not that it reads: it must still answer.
        var clock = PingClock(openedAt: 0)
        clock.pinged(at: 10)
        clock.heard(at: 15)
        #expect(clock.action(now: 19, interval: 10) == .wait)
        #expect(clock.action(now: 20, interval: 10) == .drop)
    }

    @Test func aSweepOverManyConnectionsPingsAndDropsExactlyTheDueOnes() {
        // Four connections at the sweep of t = 50: one heard at 45, one silent since 38, one
        // pinged at 39 and one pinged at 41 (neither answered).
        var heard = PingClock(openedAt: 0); heard.heard(at: 45)
        let silent = { () -> PingClock in var c = PingClock(openedAt: 0); c.heard(at: 38); return c }()
        var late = PingClock(openedAt: 0); late.pinged(at: 39)
        var young = PingClock(openedAt: 0); young.pinged(at: 41)
        let actions = [heard, silent, late, young].map { $0.action(now: 50, interval: 10) }
        #expect(actions == [.wait, .ping, .drop, .wait])
    }
}
