@testable import IsobarGateway
import Testing

/// The liveness check of one event loop as its ``PingSweeper`` runs it (``PingWheel`` holding
/// each connection's ``PingClock``), in simulated time: the timer fires at the wheel's next due
/// tick, takes out the due connections, checks them and puts back the ones not done with.
@Suite struct PingWheelTests {
    /// A connection as the check sees it: its clock, and what the check did to it.
    final class Connection: PingWheelMember {
        var wheelPosition: PingWheelPosition?
        var clock: PingClock
        /// Answers a ping with a pong this many seconds later; nil: never answers.
        let pongAfter: Double?
        var pongAt: Double?
        var pings: [Double] = []
        /// Unsolicited pongs sent (keepalives).
        var keepalives: [Double] = []
        var droppedAt: Double?
        var looks = 0

        init(openedAt now: Double, pongAfter: Double? = 0.01) {
            clock = PingClock(openedAt: now)
            self.pongAfter = pongAfter
        }

        /// Every frame the check sent, in order.
        var frames: [Double] { (pings + keepalives).sorted() }

        /// What ``WebSocketConnectionHandler/check(now:_:)`` does.
        func check(now: Double, _ timing: PingClock.Timing) -> Double? {
            looks += 1
            switch clock.action(now: now, timing) {
            case .wait:
                return clock.due(timing)
            case .drop:
                droppedAt = now
                return nil
            case .keepalive:
                clock.sent(at: now)
                keepalives.append(now)
                return clock.due(timing)
            case .ping:
                clock.pinged(at: now)
                pings.append(now)
                if let pongAfter { pongAt = now + pongAfter }
                return clock.due(timing)
            }
        }
    }

    /// One event loop: a wheel and its connections, run in steps of `step` seconds.
    struct Loop {
        let timing: PingClock.Timing
        var wheel: PingWheel<Connection>
        var now: Double = 0

        init(interval: Double, every: Int = 3) {
            timing = PingClock.Timing(interval: interval, probeEvery: every)
            wheel = PingWheel(resolution: PingSweeper.resolution(interval: interval), horizon: timing.probe, now: 0)
        }

        mutating func open(_ connection: Connection) {
            wheel.insert(connection, due: connection.clock.due(timing), now: connection.clock.lastHeard)
        }

        /// Runs to `end`; `talk` runs first at every step (a frame in or out). Returns the number
        /// of connections the timer looked at.
        @discardableResult
        mutating func run(to end: Double, step: Double = 0.25, _ all: [Connection],
                          talk: (Connection, Double) -> Void = { _, _ in }) -> Int {
            var looked = 0
            while now + step <= end + 1e-9 {
                now += step
                for connection in all where connection.droppedAt == nil {
                    if let pongAt = connection.pongAt, pongAt <= now {
                        connection.clock.ponged(at: pongAt)
                        connection.pongAt = nil
                    }
                    talk(connection, now)
                }
                // The sweeper's timer: it fires only at the wheel's next due tick.
                guard let due = wheel.nextDue(), due <= now else { continue }
                let taken = wheel.takeDue(now: now)
                looked += taken.count
                let timing = timing, now = now
                wheel.putBack(taken.map { ($0, $0.check(now: now, timing)) }, now: now)
            }
            return looked
        }
    }

    @Test func aSilentConnectionGetsAKeepalivePongEachIntervalAndEveryThirdIsAPing() {
        var loop = Loop(interval: 50)
        let silent = Connection(openedAt: 0)
        loop.open(silent)
        loop.run(to: 460, [silent])
        #expect(silent.keepalives == [50, 100, 200, 250, 350, 400])
        #expect(silent.pings == [150, 300, 450])
        #expect(silent.droppedAt == nil)
    }

    @Test func withEveryOneEachKeepaliveIsAPing() {
        var loop = Loop(interval: 50, every: 1)
        let silent = Connection(openedAt: 0)
        loop.open(silent)
        loop.run(to: 260, [silent])
        #expect(silent.keepalives.isEmpty)
        #expect(silent.pings == [50, 100, 150, 200, 250])
    }

    @Test func aConnectionThatTalksAndIsAnsweredIsNotPingedAndIsLookedAtOncePerInterval() {
        var loop = Loop(interval: 50)
        let talker = Connection(openedAt: 0)
        loop.open(talker)
        loop.run(to: 200, [talker]) { connection, now in
            guard now.truncatingRemainder(dividingBy: 10) == 0 else { return }
            connection.clock.heard(at: now)
            connection.clock.sent(at: now)
        }
        #expect(talker.frames.isEmpty)
        #expect(talker.looks == 4)  // at 50, 100, 150, 200: not at every tick
    }

    @Test func aConnectionThatTalksButIsNeverAnsweredGetsKeepalivesNotPings() {
        // nginx's proxy_read_timeout counts only what the gateway sends: the keepalive is for it;
        // the peer's own frames show it is there, so no ping.
        var loop = Loop(interval: 50)
        let talker = Connection(openedAt: 0)
        loop.open(talker)
        loop.run(to: 200, [talker]) { connection, now in
            if now.truncatingRemainder(dividingBy: 10) == 0 { connection.clock.heard(at: now) }
        }
        #expect(talker.keepalives == [50, 100, 150, 200])
        #expect(talker.pings.isEmpty)
    }

    @Test func aConnectionThatStopsTalkingGetsAKeepaliveAnIntervalAfterItsLastFrameAndAPingAtTheThird() {
        var loop = Loop(interval: 50)
        let talker = Connection(openedAt: 0)
        loop.open(talker)
        loop.run(to: 230, [talker]) { connection, now in
            guard now <= 72, now.truncatingRemainder(dividingBy: 8) == 0 else { return }
            connection.clock.heard(at: now)
            connection.clock.sent(at: now)
        }
        #expect(talker.keepalives == [122, 172])
        #expect(talker.pings == [222])
    }

    @Test func anUnansweredPingDropsTheConnectionAnIntervalLater() {
        var loop = Loop(interval: 50)
        let dead = Connection(openedAt: 0, pongAfter: nil)
        let live = Connection(openedAt: 0)
        loop.open(dead)
        loop.open(live)
        loop.run(to: 300, [dead, live]) { connection, now in
            // Frames from the dead peer after the ping show it sends, not that it reads.
            if connection === dead, now == 170 { connection.clock.heard(at: now) }
        }
        #expect(dead.keepalives == [50, 100])
        #expect(dead.pings == [150])
        #expect(dead.droppedAt == 200)
        #expect(live.keepalives == [50, 100, 200, 250])
        #expect(live.pings == [150, 300])
        #expect(loop.wheel.count == 1)
    }

    @Test func aTickLooksOnlyAtTheConnectionsDueThen() {
        // 2,000 connections opened over 10 s, silent, answering: nothing is looked at until the
        // first is due, then each once per interval (its keepalive or ping), never once per tick.
        var loop = Loop(interval: 50)
        var all: [Connection] = []
        var looked = 0
        for second in 0..<10 {
            looked += loop.run(to: Double(second), all)
            let opened = (0..<200).map { _ in Connection(openedAt: Double(second)) }
            for connection in opened { loop.open(connection) }
            all += opened
        }
        #expect(looked + loop.run(to: 49.75, all) == 0)
        #expect(loop.run(to: 99.75, all) == 2_000)
        #expect(loop.run(to: 199.75, all) == 4_000)
        #expect(all.allSatisfy { $0.keepalives.count == 2 && $0.pings.count == 1 && $0.droppedAt == nil })
        // Each frame an interval after the one before, to within a tick.
        #expect(all.allSatisfy { zip($0.frames, $0.frames.dropFirst()).allSatisfy { $1 - $0 >= 50 && $1 - $0 <= 51 } })
    }

    @Test func theDefaultsKeepAQuietConnectionUnderAMinuteWithAPingEveryThirdFrame() {
        // nginx's proxy_read_timeout and AWS ALB's idle timeout are 60 s by default (Heroku's 55 s):
        // a quiet connection must carry a gateway frame more often, with room for a loaded loop,
        // and no more often than that needs (each is a write); only every third is a ping (a read
        // more, for its pong).
        let options = GatewayOptions()
        var loop = Loop(interval: options.pingInterval, every: options.pingEvery)
        let quiet = Connection(openedAt: 0)
        loop.open(quiet)
        loop.run(to: 1_000, [quiet])
        let frames = quiet.frames
        let gaps = zip([0] + frames, frames).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 <= 55 })
        #expect(frames.count <= 1_000 / 45)
        #expect(quiet.pings.count <= 1_000 / 135)
    }

    @Test func aRemovedConnectionLeavesItsSlotAndTheOthersKeepTheirPlaces() {
        var wheel = PingWheel<Connection>(resolution: 1, horizon: 10, now: 0)
        let (a, b, c) = (Connection(openedAt: 0), Connection(openedAt: 0), Connection(openedAt: 0))
        for connection in [a, b, c] { wheel.insert(connection, due: 5, now: 0) }
        wheel.remove(a)
        wheel.remove(a)  // twice: nothing more
        #expect(a.wheelPosition == nil)
        #expect(wheel.count == 2)
        wheel.remove(c)  // the one that took a's place
        #expect(wheel.count == 1)
        #expect(wheel.nextDue() == 5)
        #expect(wheel.takeDue(now: 4.9).isEmpty)
        let due = wheel.takeDue(now: 5)
        #expect(due.count == 1 && due.first === b)
        #expect(wheel.count == 0 && wheel.nextDue() == nil)
        #expect(b.wheelPosition == nil && c.wheelPosition == nil)
    }
}
