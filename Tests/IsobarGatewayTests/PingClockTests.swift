@testable import IsobarGateway
import Testing

/// The liveness check's decisions (``PingClock``), time passed in: keepalive interval 10 s, a
/// probe (ping) after 30 s of silence from the peer (every 3rd), unless a test says otherwise.
@Suite struct PingClockTests {
    let timing = PingClock.Timing(interval: 10, probeEvery: 3)

    @Test func theProbeTimeIsThatManyIntervalsAndAtLeastOne() {
        #expect(timing.probe == 30)
        #expect(PingClock.Timing(interval: 10, probeEvery: 1).probe == 10)
        #expect(PingClock.Timing(interval: 10, probeEvery: 0).probe == 10)
    }

    @Test func aSilentPeerGetsKeepalivesThenAPingAndIsDroppedAnIntervalAfterIt() {
        var clock = PingClock(openedAt: 100)
        #expect(clock.action(now: 109.9, timing) == .wait)
        #expect(clock.action(now: 110, timing) == .keepalive)
        clock.sent(at: 110)
        #expect(clock.due(timing) == 120)
        #expect(clock.action(now: 119.9, timing) == .wait)
        #expect(clock.action(now: 120, timing) == .keepalive)
        clock.sent(at: 120)
        #expect(clock.due(timing) == 130)
        #expect(clock.action(now: 130, timing) == .ping)
        clock.pinged(at: 130)
        #expect(clock.due(timing) == 140)
        #expect(clock.action(now: 139.9, timing) == .wait)
        #expect(clock.action(now: 140, timing) == .drop)
    }

    @Test func withProbeEveryOneEachKeepaliveIsAPing() {
        let everyTime = PingClock.Timing(interval: 10, probeEvery: 1)
        var clock = PingClock(openedAt: 0)
        #expect(clock.action(now: 10, everyTime) == .ping)
        clock.pinged(at: 10)
        clock.ponged(at: 10.5)
        #expect(clock.due(everyTime) == 20)
        #expect(clock.action(now: 20, everyTime) == .ping)
    }

    @Test func aLatePongDoesNotSplitTheNextPingFromItsKeepalive() {
        // The pong came 0.5 s after the ping: the probe falls due 0.5 s after the third
        // keepalive. That keepalive is the ping: one write, not a pong and then a ping.
        var clock = PingClock(openedAt: 0)
        clock.pinged(at: 30)
        clock.ponged(at: 30.5)
        #expect(clock.action(now: 40, timing) == .keepalive)
        clock.sent(at: 40)
        #expect(clock.action(now: 50, timing) == .keepalive)
        clock.sent(at: 50)
        #expect(clock.due(timing) == 60)
        #expect(clock.action(now: 60, timing) == .ping)
    }

    @Test func aKeepaliveThatRunsLateStaysAPongUntilTheThird() {
        // Each check runs a little late (up to a wheel slot): the second keepalive, at 20.4, is
        // less than an interval before the probe (30) but still a pong; the third is the ping.
        var clock = PingClock(openedAt: 0)
        #expect(clock.action(now: 10.3, timing) == .keepalive)
        clock.sent(at: 10.3)
        #expect(clock.action(now: 20.4, timing) == .keepalive)
        clock.sent(at: 20.4)
        #expect(clock.due(timing) == 30)
        #expect(clock.action(now: 30, timing) == .ping)
    }

    @Test func aPeerThatKeepsTalkingAndIsAnsweredGetsNothing() {
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 5.0, through: 100, by: 5) {
            clock.heard(at: second)
            clock.sent(at: second)
            #expect(clock.action(now: second + 5, timing) == .wait)
        }
        #expect(clock.action(now: 110, timing) == .keepalive)
    }

    @Test func aPeerThatTalksButIsNeverAnsweredGetsKeepalivesButNoPing() {
        // nginx's proxy_read_timeout counts only what the gateway sends: the keepalive is for
        // it; the peer's own frames show it is there.
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 2.0, through: 60, by: 2) {
            clock.heard(at: second)
            if second.truncatingRemainder(dividingBy: 10) == 0 {
                #expect(clock.action(now: second, timing) == .keepalive)
                clock.sent(at: second)
            }
        }
        #expect(clock.due(timing) == 70)
    }

    @Test func aPeerThatIsSentToButSilentIsPingedAfterTheProbeTime() {
        // Annotations going out show nothing about the peer: only its own frames do.
        var clock = PingClock(openedAt: 0)
        for second in stride(from: 2.0, through: 40, by: 2) { clock.sent(at: second) }
        #expect(clock.due(timing) == 30)
        #expect(clock.action(now: 29.9, timing) == .wait)
        #expect(clock.action(now: 30, timing) == .ping)
    }

    @Test func onlyAPongAnswersAPing() {
        // Messages after the ping show the peer sends, not that it reads: it must still answer.
        var clock = PingClock(openedAt: 0)
        clock.pinged(at: 30)
        clock.heard(at: 35)
        #expect(clock.action(now: 39, timing) == .wait)
        #expect(clock.action(now: 40, timing) == .drop)
    }

    @Test func aSweepOverManyConnectionsSendsAndDropsExactlyTheDueOnes() {
        // Five connections at the sweep of t = 50: one heard and sent to at 45; one heard at 45,
        // sent to at 38; one silent since 18 but sent to at 38; one pinged at 39 and one pinged
        // at 41 (neither answered).
        var heard = PingClock(openedAt: 0); heard.heard(at: 45); heard.sent(at: 45)
        var unanswered = PingClock(openedAt: 0); unanswered.heard(at: 45); unanswered.sent(at: 38)
        var silent = PingClock(openedAt: 0); silent.heard(at: 18); silent.sent(at: 38)
        var late = PingClock(openedAt: 0); late.pinged(at: 39)
        var young = PingClock(openedAt: 0); young.pinged(at: 41)
        let actions = [heard, unanswered, silent, late, young].map { $0.action(now: 50, timing) }
        #expect(actions == [.wait, .keepalive, .ping, .drop, .wait])
    }
}
