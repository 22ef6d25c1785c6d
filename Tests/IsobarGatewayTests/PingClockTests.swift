@testable import IsobarGateway
import Testing

/// The liveness check's decisions (``PingClock``), time passed in: ping 10 s.
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

    @Test func aPeerThatKeepsTalkingAndIsAnsweredIsNeverPinged() {
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 5.0, through: 100, by: 5) {
            clock.heard(at: second)
            clock.sent(at: second)
            #expect(clock.action(now: second + 5, interval: 10) == .wait)
        }
        #expect(clock.action(now: 110, interval: 10) == .ping)
    }

    @Test func aPongAnswersThePingAndTheNextPingIsAnIntervalAfterThisOne() {
        // The ping itself is the gateway's last frame: the next is due an interval after it.
        var clock = PingClock(openedAt: 0)
        clock.pinged(at: 10)
        #expect(clock.due(interval: 10) == 20)
        clock.ponged(at: 12)
        #expect(clock.action(now: 19.9, interval: 10) == .wait)
        #expect(clock.due(interval: 10) == 20)
        #expect(clock.action(now: 20, interval: 10) == .ping)
    }

    @Test func aPeerThatTalksButIsNeverAnsweredIsPinged() {
        // nginx's proxy_read_timeout counts only what the gateway sends: quiet that way is enough.
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 2.0, through: 20, by: 2) { clock.heard(at: second) }
        #expect(clock.due(interval: 10) == 10)
        #expect(clock.action(now: 10, interval: 10) == .ping)
    }

    @Test func aPeerThatIsSentToButSilentIsPinged() {
        // Annotations going out show nothing about the peer: only its own frames do.
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 2.0, through: 20, by: 2) { clock.sent(at: second) }
        #expect(clock.action(now: 10, interval: 10) == .ping)
    }

    @Test func aConversationIsNotPingedAndIsDueAnIntervalAfterItsOlderSide() {
        var clock = PingClock(openedAt: 0)
        clock.heard(at: 8)
        clock.sent(at: 9)
        #expect(clock.action(now: 10, interval: 10) == .wait)
        #expect(clock.due(interval: 10) == 18)
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
        var heard = PingClock(openedAt: 0); heard.heard(at: 45); heard.sent(at: 45)
        let silent = { () -> PingClock in var c = PingClock(openedAt: 0); c.heard(at: 38); c.sent(at: 38); return c }()
        var late = PingClock(openedAt: 0); late.pinged(at: 39)
        var young = PingClock(openedAt: 0); young.pinged(at: 41)
        let actions = [heard, silent, late, young].map { $0.action(now: 50, interval: 10) }
        #expect(actions == [.wait, .ping, .drop, .wait])
    }
}
